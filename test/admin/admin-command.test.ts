import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

import { startTestServer, type TestServer } from '../support/harness.js'
import { serviceEnv } from '../support/processes.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

type Run = { code: number; stdout: string; stderr: string }

/** `pnpm admin …` as an operator types it, in a process of its own, on the run's database. */
function admin(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile('pnpm', ['-s', 'admin', ...args], { cwd: root, env: serviceEnv({ DATABASE_URL: inject('databaseUrl') }) }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return void reject(new Error(`pnpm admin did not run: ${error.message}`))
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr })
    })
  })
}

let app: TestServer
beforeAll(async () => {
  app = await startTestServer()
})
afterAll(() => app?.stop())

const countKeys = async () => Number((await app.orm.em.fork().execute<{ count: string }[]>('select count(*) from booth_key'))[0]!.count)
const boothEvents = (key: string) => fetch(`${app.url}/booth/events`, { headers: { authorization: `Bearer ${key}` } })
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z'

describe('pnpm admin booth-key', () => {
  it('when an operator creates, lists and revokes a key, then the printed key works until it is revoked, and the list shows its state', async () => {
    const name = `Mirror booth ${Date.now()}`
    const created = await admin('booth-key', 'create', '--name', name)
    expect(created.code).toBe(0)
    const printed = /^Created booth key ([A-Za-z0-9]{12}) for "(.+)"\. Copy it now, it is not shown again:\n\n {2}(pbk_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43})\n\n$/.exec(created.stdout)
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
    expect(listed.stdout).not.toContain(key.split('_')[2])

    const revoked = await admin('booth-key', 'revoke', id)
    expect(revoked).toEqual({ code: 0, stdout: `Revoked ${id}.\n`, stderr: '' })
    const refused = await boothEvents(key)
    expect(refused.status).toBe(401)
    expect(await refused.text()).toBe('Unauthorized')

    const [again, after] = await Promise.all([admin('booth-key', 'revoke', id), admin('booth-key', 'list')])
    expect(again).toEqual({ code: 1, stdout: `No active key ${id}.\n`, stderr: '' })
    expect(after.stdout.split('\n').find((entry) => entry.startsWith(`${id} `))).toMatch(new RegExp(`^${id} +revoked ${ISO} +last used ${ISO} +${name}$`))
  }, 60_000)

  it('when the command is incomplete, then it says what is missing, exits 2 and writes nothing', async () => {
    const before = await countKeys()
    const [nothing, blankName, noId] = await Promise.all([admin(), admin('booth-key', 'create', '--name', '   '), admin('booth-key', 'revoke')])
    expect(nothing).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^Usage:\n {2}pnpm admin booth-key create --name "<booth>"/) })
    expect(blankName).toEqual({ code: 2, stdout: '', stderr: 'booth-key create needs --name "<booth>"\n' })
    expect(noId).toEqual({ code: 2, stdout: '', stderr: 'booth-key revoke needs the key id\n' })
    expect(await countKeys()).toBe(before)
  }, 60_000)
})
