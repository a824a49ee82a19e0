/**
 * The booth connector as an operator and a service manager meet it (issue 33): its exit codes, its
 * `status` command, and its packed tarball run with npx and pnpm dlx (one bundled file, nothing to
 * install from a registry), delivering a session.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { event, startConnector, type RunningConnector } from './booth-connector.js'

const run = promisify(execFile)
const APP = fileURLToPath(new URL('../../apps/booth', import.meta.url))
const CLI = join(APP, 'src/cli.ts')

const app = withTestServer()
let boothKey: string
let work: string
const running: RunningConnector[] = []

beforeAll(async () => {
  boothKey = await createTestBoothKey(app, 'CLI booth')
  work = await mkdtemp(join(tmpdir(), 'photobooth-booth-cli-'))
})
afterAll(async () => {
  await Promise.all(running.map((connector) => connector.kill()))
  await rm(work, { recursive: true, force: true })
})

/** A command's exit code and output, whatever the code. */
async function exitOf(file: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = APP) {
  try {
    const { stdout, stderr } = await run(file, args, { env: { ...process.env, ...env }, cwd, timeout: 120_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

const connector = (args: string[], env: NodeJS.ProcessEnv = { PHOTOBOOTH_BOOTH_KEY: boothKey }) => {
  const started = startConnector(args, env)
  running.push(started)
  return started
}

describe('the booth connector’s command line', () => {
  it('when a setting is missing or wrong, then it exits 2 with a line saying which, and the key is never echoed', async () => {
    const missing = await exitOf(process.execPath, ['--import', 'tsx', CLI, 'folder', join(work, 'x'), '--set', 'a/b'], {
      PHOTOBOOTH_BOOTH_KEY: boothKey,
    })
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/--service <url>.*is required/)])
    const group = await exitOf(
      process.execPath,
      ['--import', 'tsx', CLI, 'folder', join(work, 'x'), '--service', app.url, '--set', 'a/b', '--group', 'every:4'],
      {
        PHOTOBOOTH_BOOTH_KEY: boothKey,
      },
    )
    expect([group.code, group.stderr]).toEqual([2, expect.stringMatching(/--group every:4: expected count/)])
    // The key's secret: after `pbk_`, its 12-character id and `_` (the secret may hold `_` itself: split('_') cut it short).
    expect(missing.stderr + missing.stdout + group.stderr + group.stdout).not.toContain(boothKey.slice('pbk_'.length + 12 + 1))
  })

  it('when the service refuses the key, or knows no such set, then it says so at start and exits 3 (a service manager does not restart it)', async () => {
    const { sets } = await seedEvent(app.orm)
    const revoked = connector(
      ['folder', join(work, 'refused'), '--service', app.url, '--set', sets[0]!.id, '--state', join(work, 'refused-state')],
      {
        PHOTOBOOTH_BOOTH_KEY: `pbk_AAAAAAAAAAAA_${'A'.repeat(43)}`,
      },
    )
    expect({ ...(await revoked.exited), stderr: revoked.stderr() }).toEqual({ code: 3, signal: null, stderr: '' })
    expect(revoked.lines.at(-1)).toMatchObject({
      level: 'error',
      event: 'refused',
      message: expect.stringMatching(/refused the booth key/),
    })
    const noSet = connector([
      'folder',
      join(work, 'noset'),
      '--service',
      app.url,
      '--set',
      'no-event/no-set',
      '--state',
      join(work, 'noset-state'),
    ])
    expect({ ...(await noSet.exited), stderr: noSet.stderr() }).toEqual({ code: 3, signal: null, stderr: '' })
    expect(noSet.lines.at(-1)).toMatchObject({ event: 'refused', message: expect.stringMatching(/no set no-event\/no-set/) })
  })

  it('when a second connector starts on the same state folder, then it exits 4; status tells what the running one does, and exit 3 once it stopped', async () => {
    const { sets } = await seedEvent(app.orm)
    const state = join(work, 'shared-state')
    const first = connector(['folder', join(work, 'first'), '--service', app.url, '--set', sets[0]!.id, '--state', state])
    await first.next(event('mode.ready'))
    const second = connector(['folder', join(work, 'second'), '--service', app.url, '--set', sets[0]!.id, '--state', state])
    expect((await second.exited).code).toBe(4)
    expect(second.lines.at(-1)).toMatchObject({ event: 'state.in-use' })

    const status = await exitOf(process.execPath, ['--import', 'tsx', CLI, 'status', '--state', state])
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/connector: running \(pid \d+, folder mode/)
    expect(status.stdout).toMatch(/sessions: 0 being filled, 0 waiting, 0 completed, 0 failed/)
    first.child.kill('SIGTERM')
    expect((await first.exited).code).toBe(0)
    const stopped = await exitOf(process.execPath, ['--import', 'tsx', CLI, 'status', '--state', state, '--json'])
    expect([stopped.code, JSON.parse(stopped.stdout)]).toEqual([3, expect.objectContaining({ running: false, queueDepth: 0 })])
  })

  it('when packed, then its tarball runs with npx and pnpm dlx, and delivers a session from a folder', async () => {
    const packed = join(work, 'packed')
    await mkdir(packed, { recursive: true })
    await run('pnpm', ['pack', '--pack-destination', packed], { cwd: APP, timeout: 120_000 })
    const [tarball] = await readdir(packed)
    const path = join(packed, tarball!)
    const npx = await exitOf('npx', ['--yes', `--package=${path}`, 'photobooth-booth', '--version'], {
      npm_config_cache: join(work, 'npm-cache'),
    })
    expect([npx.code, npx.stdout.trim()]).toEqual([0, '0.1.0'])
    const dlx = await exitOf('pnpm', ['dlx', path, 'status', '--state', join(work, 'nothing')])
    expect([dlx.code, dlx.stdout.trim()]).toEqual([3, `no connector has run with the state folder ${join(work, 'nothing')}`])

    // The bundle itself (dist/cli.js, what the tarball holds) delivering a session.
    const { sets } = await seedEvent(app.orm)
    const sessionId = await registerGuests(app, sets[0]!.id, [{ name: 'Packed', email: 'packed@example.org' }])
    const folder = join(work, 'bundle-folder')
    await mkdir(folder, { recursive: true })
    const child = spawn(
      process.execPath,
      [
        join(APP, 'dist/cli.js'),
        'folder',
        folder,
        '--service',
        app.url,
        '--set',
        sets[0]!.id,
        '--state',
        join(work, 'bundle-state'),
        '--group',
        'count:1',
        '--stable',
        '0.3',
        '--json',
      ],
      {
        env: { ...process.env, PHOTOBOOTH_BOOTH_KEY: boothKey },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => output.includes('"mode.ready"') && (clearInterval(timer), resolve()), 50)
    })
    await writeFile(join(folder, 'one.jpg'), makeJpeg(40, 30, 3))
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => output.includes('"session.completed"') && (clearInterval(timer), resolve()), 50)
      setTimeout(() => reject(new Error(`no completion: ${output}`)), 60_000)
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    const [row] = await app.orm.em.fork().execute<{ status: string }[]>('select status from session where id = ?', [sessionId])
    expect(row?.status).toBe('completed')
  }, 240_000)
})
