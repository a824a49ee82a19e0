import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { startEmbeddedPostgres } from '@photobooth/server/db/embedded-postgres'
import { openOrm } from '@photobooth/server/db/orm'
import { describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'
import { sessionCookie, signIn } from '../support/staff.js'
import { freePort, serviceEnv } from '../support/processes.js'
import { testDatabaseUrl } from '../support/database-url.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

type Run = { code: number; stdout: string; stderr: string }

/**
 * What `pnpm admin …` runs (its script, `tsx server/src/admin.ts`, checked below), in a process of its
 * own on the run's database; `input` is its standard input. Without pnpm in between, a run costs a
 * second less of CPU, and this file makes twenty. `viaPnpm` runs it as an operator types it.
 */
function adminWith(input: string | undefined, ...args: string[]): Promise<Run> {
  return runAdmin(process.execPath, ['--import', 'tsx', 'server/src/admin.ts', ...args], input)
}
const viaPnpm = (...args: string[]) => runAdmin('pnpm', ['-s', 'admin', ...args], undefined)

function runAdmin(command: string, args: string[], input: string | undefined, settings: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = serviceEnv({ DATABASE_URL: testDatabaseUrl(), AUTH_SECRET: 'a'.repeat(32), ...settings })
    const child = execFile(command, args, { cwd: root, env }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return void reject(new Error(`pnpm admin did not run: ${error.message}`))
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr })
    })
    child.stdin?.end(input)
  })
}
const admin = (...args: string[]) => adminWith(undefined, ...args)

const app = withTestServer()

const countKeys = async () => Number((await app.orm.em.fork().execute<{ count: string }[]>('select count(*) from booth_key'))[0]!.count)
const boothEvents = (key: string) => fetch(`${app.url}/booth/events`, { headers: { authorization: `Bearer ${key}` } })
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z'

describe('pnpm admin booth-key', () => {
  it('when an operator creates, lists and revokes a key, then the printed key works until it is revoked, and the list shows its state', async () => {
    const scripts = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts.admin).toBe('tsx server/src/admin.ts')
    const name = `Mirror booth ${Date.now()}`
    const created = await viaPnpm('booth-key', 'create', '--name', name)
    expect(created.code).toBe(0)
    const printed =
      /^Created booth key ([A-Za-z0-9]{12}) for "(.+)"\. Copy it now, it is not shown again:\n\n {2}(pbk_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43})\n\n$/.exec(
        created.stdout,
      )
    expect(printed, created.stdout).not.toBeNull()
    const [, id, printedName, key] = printed as unknown as [string, string, string, string]
    expect(printedName).toBe(name)
    expect(key.split('_')[1]).toBe(id)

    // The printed key is a working booth key.
    expect((await boothEvents(key)).status).toBe(200)

    const listed = await admin('booth-key', 'list')
    expect(listed.code).toBe(0)
    const line = listed.stdout.split('\n').find((entry) => entry.startsWith(`${id} `))
    expect(line).toMatch(new RegExp(`^${id} +active +last used ${ISO} +${name}$`))
    // Never the secret.
    // The secret is all after `pbk_<id>_` (it may itself hold an underscore).
    expect(listed.stdout).not.toContain(key.split('_').slice(2).join('_'))

    const revoked = await admin('booth-key', 'revoke', id)
    expect(revoked).toEqual({ code: 0, stdout: `Revoked ${id}.\n`, stderr: '' })
    const refused = await boothEvents(key)
    expect(refused.status).toBe(401)
    expect(await refused.text()).toBe('Unauthorized')

    const [again, after] = await Promise.all([admin('booth-key', 'revoke', id), admin('booth-key', 'list')])
    expect(again).toEqual({ code: 1, stdout: `No active key ${id}.\n`, stderr: '' })
    expect(after.stdout.split('\n').find((entry) => entry.startsWith(`${id} `))).toMatch(
      new RegExp(`^${id} +revoked ${ISO} +last used ${ISO} +${name}$`),
    )
  }, 240_000)

  it('when the command is incomplete, then it says what is missing, exits 2 and writes nothing', async () => {
    const before = await countKeys()
    const [nothing, blankName, noId] = await Promise.all([
      admin(),
      admin('booth-key', 'create', '--name', '   '),
      admin('booth-key', 'revoke'),
    ])
    expect(nothing).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^Usage:\n {2}pnpm admin staff create --email <email>/) })
    expect(blankName).toEqual({ code: 2, stdout: '', stderr: 'booth-key create needs --name "<booth>"\n' })
    expect(noId).toEqual({ code: 2, stdout: '', stderr: 'booth-key revoke needs the key id\n' })
    expect(await countKeys()).toBe(before)
  }, 240_000)
})

const countStaff = async (email: string) =>
  Number((await app.orm.em.fork().execute<{ count: string }[]>('select count(*) from staff_member where email = ?', [email]))[0]!.count)

describe('pnpm admin staff', () => {
  it('when an operator creates the first staff member, then they sign in with that password, and the list shows them', async () => {
    const email = `owner-${Date.now()}@example.org`
    const created = await admin(
      'staff',
      'create',
      '--email',
      email.toUpperCase(),
      '--name',
      'Olivia Owner',
      '--password',
      'correct horse battery',
    )
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toMatch(
      new RegExp(`^Created staff member ${email} \\([A-Za-z0-9]+\\), an owner\\. Sign in at POST /api/auth/sign-in/email\\.\\n$`),
    )
    expect((await signIn(app, email, 'correct horse battery')).status).toBe(200)
    const listed = await admin('staff', 'list')
    expect(listed.stdout.split('\n').find((line) => line.includes(email))).toMatch(
      new RegExp(`^[A-Za-z0-9]+ +${ISO} +owner +${email} +Olivia Owner$`),
    )
  }, 240_000)

  it('when an operator gives a member a role, then it is theirs at once (the way back for a team without an owner); a bad role or email is refused', async () => {
    const email = `restored-${Date.now()}@example.org`
    expect((await admin('staff', 'create', '--email', email, '--password', 'correct horse battery')).code).toBe(0)
    const demoted = await admin('staff', 'set-role', '--email', email, '--role', 'staff')
    expect(demoted.code, demoted.stderr).toBe(0)
    expect(demoted.stdout).toMatch(new RegExp(`^${email} \\([A-Za-z0-9]+\\) is now staff\\.\\n$`))
    const restored = await admin('staff', 'set-role', '--email', email.toUpperCase(), '--role', 'owner')
    expect(restored.stdout).toMatch(/is now owner\.\n$/)
    const cookie = sessionCookie(await signIn(app, email, 'correct horse battery'))
    expect((await fetch(`${app.url}/staff/me`, { headers: { cookie } })).status).toBe(200)
    expect((await (await fetch(`${app.url}/staff/me`, { headers: { cookie } })).json()).role).toBe('owner')
    const [badRole, unknown] = await Promise.all([
      admin('staff', 'set-role', '--email', email, '--role', 'admin'),
      admin('staff', 'set-role', '--email', 'nobody@example.org', '--role', 'owner'),
    ])
    expect([badRole.code, unknown.code]).toEqual([2, 1])
    expect(unknown.stderr).toContain('No staff member has the email nobody@example.org')
  }, 240_000)

  it('when no password is given and standard input is not a terminal, then its first line is the password', async () => {
    const email = `piped-${Date.now()}@example.org`
    const created = await adminWith('a piped passphrase\n', 'staff', 'create', '--email', email)
    expect(created.code, created.stderr).toBe(0)
    expect((await signIn(app, email, 'a piped passphrase')).status).toBe(200)
  }, 240_000)

  it('when the email is taken, then exit 1 with the reason; when the input is bad, exit 2; neither writes anyone', async () => {
    const email = `taken-${Date.now()}@example.org`
    expect((await admin('staff', 'create', '--email', email, '--password', 'correct horse battery')).code).toBe(0)
    const [taken, noEmail, badEmail, shortPassword, noPassword] = await Promise.all([
      admin('staff', 'create', '--email', email, '--password', 'another password!'),
      admin('staff', 'create', '--password', 'correct horse battery'),
      admin('staff', 'create', '--email', 'not-an-email', '--password', 'correct horse battery'),
      admin('staff', 'create', '--email', `short-${email}`, '--password', 'short'),
      adminWith('', 'staff', 'create', '--email', `empty-${email}`),
    ])
    expect(taken).toEqual({ code: 1, stdout: '', stderr: `A staff member with the email ${email} already exists\n` })
    expect(noEmail).toEqual({ code: 2, stdout: '', stderr: 'staff create needs --email <email>\n' })
    expect(badEmail).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^email: /) })
    expect(shortPassword).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^password: /) })
    expect(noPassword).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^password: /) })
    expect(await countStaff(email)).toBe(1)
    expect(await Promise.all([countStaff('not-an-email'), countStaff(`short-${email}`), countStaff(`empty-${email}`)])).toEqual([0, 0, 0])
  }, 240_000)
})

describe('pnpm admin demo seed', () => {
  it('when the demo event is missing, then it is created with its sets; run again, it says it exists', async () => {
    await app.orm.em.fork().execute(`delete from event where slug = 'demo'`)
    const first = await admin('demo', 'seed')
    expect(first).toEqual({
      code: 0,
      stdout: 'Created the demo event "demo" with its sets demo/photo-wall, demo/mirror-booth.\n',
      stderr: '',
    })
    expect((await fetch(`${app.url}/events/demo/sets/mirror-booth`)).status).toBe(200)
    const second = await admin('demo', 'seed')
    expect(second).toEqual({ code: 0, stdout: 'The demo event "demo" already exists.\n', stderr: '' })
  }, 240_000)
})

describe('pnpm admin without the service’s settings', () => {
  it('when no cluster is in its DATA_DIR, then it refuses to make one, naming the cluster running elsewhere and how to point at it; pointed there, it works on that one', async () => {
    // The service's cluster, in a data directory of its own, as `DATA_DIR=… pnpm start` makes it.
    const service = await mkdtemp(join(tmpdir(), 'photobooth-service-'))
    const elsewhere = await mkdtemp(join(tmpdir(), 'photobooth-admin-cwd-'))
    const port = await freePort()
    const cluster = await startEmbeddedPostgres({ dataDir: service, port, database: 'photobooth' })
    try {
      const embedded = (dataDir: string, clusterPort: number) => ({
        DATABASE_URL: undefined,
        DATA_DIR: dataDir,
        EMBEDDED_POSTGRES_PORT: String(clusterPort),
      })
      const refused = await runAdmin(
        process.execPath,
        ['--import', 'tsx', 'server/src/admin.ts', 'booth-key', 'create', '--name', 'Lost booth'],
        undefined,
        embedded(elsewhere, await freePort()),
      )
      expect(refused.code).toBe(1)
      expect(refused.stdout).toBe('')
      expect(refused.stderr).toContain(`No database cluster in ${join(elsewhere, 'postgres')}: pnpm admin works on the service's database`)
      expect(refused.stderr).toContain(`  ${service} (port ${port}):  DATA_DIR=${service} EMBEDDED_POSTGRES_PORT=${port} pnpm admin …`)
      // Nothing was made: no cluster of 48 MB, no key the service does not know.
      expect(await readdir(elsewhere)).toEqual([])

      const created = await runAdmin(
        process.execPath,
        ['--import', 'tsx', 'server/src/admin.ts', 'booth-key', 'create', '--name', 'Found booth'],
        undefined,
        embedded(service, port),
      )
      expect(created.code, created.stderr).toBe(0)
      const orm = await openOrm(cluster.url)
      try {
        const names = await orm.em.fork().execute<{ name: string }[]>('select name from booth_key')
        expect(names.map((row) => row.name)).toEqual(['Found booth'])
      } finally {
        await orm.close()
      }
    } finally {
      await cluster.stop()
      await rm(service, { recursive: true, force: true })
      await rm(elsewhere, { recursive: true, force: true })
    }
  }, 240_000)
})
