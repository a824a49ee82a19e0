import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { openOrm } from '@photobooth/server/db/orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { seedEvent } from '../support/harness.js'
import { freePort, serviceEnv } from '../support/processes.js'
import { testDatabaseUrl } from '../support/database-url.js'
import { until } from '../support/until.js'

/**
 * Shutting the service down, in a process of its own, started as the README says to run it in
 * production: `node --import tsx server/src/main.ts` from the repository root.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const COMMAND = ['--import', 'tsx', 'server/src/main.ts']

type Exit = { code: number | null; signal: NodeJS.Signals | null; at: number }

type Service = {
  child: ChildProcess
  port: number
  /** Resolves when the service has logged that it is stopping (its drain has begun). */
  stopping: Promise<number>
  exited: Promise<Exit>
  stderr: () => string
}

const children: ChildProcess[] = []
const folders: string[] = []

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    }
  }
  // A cluster left behind by a failed test is stopped before its folder goes.
  for (const folder of folders.splice(0)) {
    const pid = postmasterPid(folder)
    if (pid !== undefined && isAlive(pid)) {
      process.kill(pid, 'SIGINT')
      await until(
        async () => isAlive(pid),
        (alive) => !alive,
      )
    }
    await rm(folder, { recursive: true, force: true })
  }
})

async function tempFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'photobooth-shutdown-'))
  folders.push(folder)
  return folder
}

/**
 * Starts the service and resolves once it listens. `detached`: in a process group of its own, as
 * a terminal runs a command (so that the whole group can be sent a Ctrl-C).
 */
async function startService(env: Record<string, string>, options: { detached?: boolean } = {}): Promise<Service> {
  const child = spawn(process.execPath, COMMAND, {
    cwd: ROOT,
    detached: options.detached ?? false,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: serviceEnv({ DATABASE_URL: undefined, DELIVERY: 'off', ...env }),
  })
  children.push(child)
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })))
  let onStopping: (at: number) => void = () => {}
  const stopping = new Promise<number>((resolve) => (onStopping = resolve))
  const listening = new Promise<number>((resolve, reject) => {
    void exited.then(({ code, signal }) => reject(new Error(`the service exited (${signal ?? code}) before it listened:\n${stderr}`)))
    createInterface({ input: child.stdout }).on('line', (line) => {
      const record = parseRecord(line)
      if (record?.message === 'photo booth service listening') resolve(Number(new URL(String(record.url)).port))
      if (record?.message === 'stopping') onStopping(Date.now())
    })
  })
  return { child, port: await listening, stopping, exited, stderr: () => stderr }
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined // the banner
  }
}

/** Resolves with the exit, or with undefined if the process is still running after `ms`. */
async function exitWithin(service: Service, ms: number): Promise<Exit | undefined> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))
  try {
    return await Promise.race([service.exited, late])
  } finally {
    clearTimeout(timer)
  }
}

type Answer = {
  status: number
  headers: IncomingHttpHeaders
  body: string
  /** Which of the client's connections it came on. */
  connection: number
  sentAfterStopping: boolean
  receivedAfterSignal: boolean
}

/** Marks in time that the load's answers are sorted by. */
type Marks = { signalSent: boolean; stoppingSeen: boolean }

/**
 * Clients keeping `connections` keep-alive connections busy: each sends its next request as soon
 * as the last is answered, until a request fails (the server closed the connection or no longer
 * listens).
 */
function keepBusy(port: number, paths: string[], connections: number, marks: Marks) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const answers: Answer[] = []
  const failures: string[] = []
  const socketIds = new Map<object, number>()
  const idOf = (socket: object) => {
    if (!socketIds.has(socket)) socketIds.set(socket, socketIds.size + 1)
    return socketIds.get(socket)!
  }
  let onFirstAnswers: () => void = () => {}
  const warmedUp = new Promise<void>((resolve) => (onFirstAnswers = resolve))
  const one = (path: string) =>
    new Promise<boolean>((resolve) => {
      const sentAfterStopping = marks.stoppingSeen
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        const connection = idOf(res.socket)
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => {
          answers.push({
            status: res.statusCode!,
            headers: res.headers,
            body,
            connection,
            sentAfterStopping,
            receivedAfterSignal: marks.signalSent,
          })
          if (answers.length >= connections * 5) onFirstAnswers()
          resolve(true)
        })
        res.on('error', (error: NodeJS.ErrnoException) => {
          failures.push(`${error.code}: ${error.message}`)
          resolve(false)
        })
      })
      req.on('error', (error: NodeJS.ErrnoException) => {
        failures.push(`${error.code}: ${error.message}`)
        resolve(false)
      })
      req.end()
    })
  const loops = Array.from({ length: connections }, async (_, index) => {
    for (let n = index; await one(paths[n % paths.length]!); n += 1);
  })
  return { answers, failures, warmedUp, done: Promise.all(loops).then(() => agent.destroy()) }
}

/**
 * A registration whose body is held back: its headers (with `Expect: 100-continue`) are sent
 * and answered `100 Continue`, so the service has the request in hand; `finish()` sends the body.
 */
async function heldRegistration(port: number, setId: string, marks: Marks) {
  const agent = new Agent({ keepAlive: true })
  const body = JSON.stringify({ guests: [{ name: 'Ada Lovelace', email: 'ada@example.org' }] })
  const req = request({
    host: '127.0.0.1',
    port,
    path: `/sets/${setId}/sessions`,
    method: 'POST',
    agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
  })
  const answered = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: text,
          connection: 0,
          sentAfterStopping: false,
          receivedAfterSignal: marks.signalSent,
        }),
      )
    })
    req.on('error', reject)
  })
  await new Promise<void>((resolve, reject) => {
    req.once('continue', resolve)
    req.once('error', reject)
    req.flushHeaders()
  })
  req.write(body.slice(0, 10))
  return {
    answered: answered.finally(() => agent.destroy()),
    finish: () => req.end(body.slice(10)),
  }
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Running, and not a zombie waiting for a reaper (an orphaned postmaster's parent may never reap it). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}

function expectDrained(load: { answers: Answer[]; failures: string[] }, held: Answer[]) {
  const statuses = [...load.answers, ...held].map((answer) => answer.status)
  expect(statuses.filter((status) => status >= 500)).toEqual([])
  // The requests in hand when the signal came are answered, as their connection's last.
  for (const answer of held) {
    expect(answer.status, answer.body).toBe(201)
    expect(answer.headers.connection).toBe('close')
  }
  // No connection is kept alive once the drain has begun…
  const late = load.answers.filter((answer) => answer.sentAfterStopping)
  expect(late.filter((answer) => answer.headers.connection !== 'close')).toEqual([])
  // …and none was cut with a request on its way: the clients' only failures are new connections
  // refused (the server no longer listens). A pooled agent may leave a connection idle at any moment:
  // one idle when the drain began is ended after its linger without another answer (its client reads
  // the end of the stream), so its last answer may say keep-alive; a request lost on it would fail here.
  expect(load.failures.filter((failure) => !failure.startsWith('ECONNREFUSED'))).toEqual([])
}

describe('shutdown, against the run’s PostgreSQL', () => {
  let databaseUrl: string
  let slug: string
  let setId: string
  beforeAll(async () => {
    databaseUrl = testDatabaseUrl()
    const orm = await openOrm(databaseUrl)
    try {
      const { event, sets } = await seedEvent(orm)
      slug = event.slug
      setId = sets[0]!.id
    } finally {
      await orm.close()
    }
  })

  it('when SIGTERM comes while keep-alive connections are busy, then every answer is < 500, the rest say Connection: close, and it exits 0 within the grace', async () => {
    const graceMs = 8_000
    const service = await startService({ DATABASE_URL: databaseUrl, DATA_DIR: await tempFolder(), SHUTDOWN_GRACE_MS: String(graceMs) })
    const marks: Marks = { signalSent: false, stoppingSeen: false }
    void service.stopping.then(() => (marks.stoppingSeen = true))
    const held = await Promise.all([1, 2, 3].map(() => heldRegistration(service.port, setId, marks)))
    const load = keepBusy(
      service.port,
      [`/gallery/events/${slug}`, `/events/${slug}/sets/set-1`, '/gallery/events/no-such-event'],
      8,
      marks,
    )
    await load.warmedUp

    marks.signalSent = true
    const signalledAt = Date.now()
    service.child.kill('SIGTERM')
    await service.stopping
    for (const request of held) request.finish()
    const heldAnswers = await Promise.all(held.map((request) => request.answered))
    const exit = await exitWithin(service, graceMs + 5_000)
    expect(exit, 'still running').toMatchObject({ code: 0, signal: null })
    expect(exit!.at - signalledAt).toBeLessThan(graceMs)
    await load.done

    expectDrained(load, heldAnswers)
    expect(load.answers.length).toBeGreaterThan(40)
    // The requests in flight on the busy connections when the signal came were answered too.
    expect(load.answers.filter((answer) => answer.receivedAfterSignal).length).toBeGreaterThan(0)
    expect(service.stderr()).toBe('')
  })

  it('when a request never finishes, then the service still exits 0 once the grace has run out', async () => {
    const graceMs = 1_000
    const service = await startService({ DATABASE_URL: databaseUrl, DATA_DIR: await tempFolder(), SHUTDOWN_GRACE_MS: String(graceMs) })
    const marks: Marks = { signalSent: false, stoppingSeen: false }
    // Its body never comes whole.
    const stuck = await heldRegistration(service.port, setId, marks)
    const cut = stuck.answered.then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    )

    const signalledAt = Date.now()
    service.child.kill('SIGTERM')
    const exit = await exitWithin(service, graceMs + 5_000)

    expect(exit, 'still running').toMatchObject({ code: 0, signal: null })
    const took = exit!.at - signalledAt
    expect(took).toBeGreaterThanOrEqual(graceMs - 50)
    expect(took).toBeLessThan(graceMs + 3_000)
    expect(await cut).toBe('ECONNRESET')
  })
})

describe('shutdown with the embedded PostgreSQL', () => {
  // Each test starts the service under tsx and a PostgreSQL cluster: over a minute on a shared 2-core machine.
  /** One cluster folder for these tests, one after the other (initdb once). */
  let dataDir: string
  let pgPort: number
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'photobooth-embedded-'))
    pgPort = await freePort()
  })
  afterAll(async () => {
    const pid = postmasterPid(dataDir)
    if (pid !== undefined && isAlive(pid)) {
      process.kill(pid, 'SIGINT')
      await until(
        async () => isAlive(pid),
        (alive) => !alive,
      )
    }
    await rm(dataDir, { recursive: true, force: true })
  })

  const embeddedEnv = () => ({ DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(pgPort), SEED_DEMO: 'true' })

  async function demoSetId(port: number): Promise<string> {
    const response = await fetch(`http://127.0.0.1:${port}/events/demo/sets/photo-wall`)
    return ((await response.json()) as { set: { id: string } }).set.id
  }

  it('when Ctrl-C reaches the whole process group mid-requests, then PostgreSQL outlives the drain: no answer >= 500, exit 0, and the postmaster is gone after', async () => {
    const service = await startService({ ...embeddedEnv(), SHUTDOWN_GRACE_MS: '8000' }, { detached: true })
    const postmaster = postmasterPid(dataDir)!
    expect(isAlive(postmaster)).toBe(true)
    const marks: Marks = { signalSent: false, stoppingSeen: false }
    void service.stopping.then(() => (marks.stoppingSeen = true))
    const setId = await demoSetId(service.port)
    const held = await Promise.all([1, 2, 3].map(() => heldRegistration(service.port, setId, marks)))
    const load = keepBusy(
      service.port,
      ['/gallery/events/demo', '/events/demo/sets/photo-wall', '/events/demo/sets/mirror-booth'],
      8,
      marks,
    )
    await load.warmedUp

    marks.signalSent = true
    // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-service.child.pid!, 'SIGINT')
    await service.stopping
    for (const request of held) request.finish()
    const heldAnswers = await Promise.all(held.map((request) => request.answered))
    const exit = await exitWithin(service, 30_000)
    expect(exit, 'still running').toMatchObject({ code: 0, signal: null })
    await load.done

    expectDrained(load, heldAnswers)
    expect(load.answers.filter((answer) => answer.receivedAfterSignal).length).toBeGreaterThan(0)
    expect(isAlive(postmaster)).toBe(false)
    expect(service.stderr()).toBe('')
  }, 120_000)

  it('when the process the README says to run gets SIGTERM, then it exits 0 with the embedded cluster stopped', async () => {
    // `pnpm start` is that same command, with no layer of its own between the signal and node.
    const scripts = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts.start).toBe(`node ${COMMAND.join(' ')}`)

    const service = await startService(embeddedEnv())
    const postmaster = postmasterPid(dataDir)!
    expect((await fetch(`http://127.0.0.1:${service.port}/gallery/events/demo`)).status).toBe(200)

    service.child.kill('SIGTERM')
    const exit = await exitWithin(service, 30_000)

    expect(exit, 'still running').toMatchObject({ code: 0, signal: null })
    expect(isAlive(postmaster)).toBe(false)
    expect(postmasterPid(dataDir)).toBeUndefined()
  }, 120_000)

  it('when the node process dies of an uncaught exception, then it does not leave the embedded cluster running', async () => {
    // The service started, then a fault nobody catches: the process ends through 'exit'.
    const crashing = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/crash-after-start.ts', import.meta.url))],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: serviceEnv({ ...embeddedEnv(), DELIVERY: 'off' }),
      },
    )
    children.push(crashing)
    let stderr = ''
    crashing.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    let postmaster: number | undefined
    createInterface({ input: crashing.stdout }).on('line', (line) => (postmaster = Number(parseRecord(line)?.postmaster) || postmaster))
    const code = await new Promise<number | null>((resolve) => crashing.once('exit', (exitCode) => resolve(exitCode)))

    expect(stderr).toContain('an unexpected fault')
    expect(code).toBe(1)
    expect(postmaster).toBeGreaterThan(0)
    expect(
      await until(
        async () => isAlive(postmaster!),
        (alive) => !alive,
      ),
      'the postmaster still runs',
    ).toBe(false)
  }, 120_000)

  it('when the node process is killed outright (-9), then its cluster survives and the next start adopts it, and stops it on SIGTERM', async () => {
    const first = await startService(embeddedEnv())
    const postmaster = postmasterPid(dataDir)!
    first.child.kill('SIGKILL')
    await first.exited
    expect(isAlive(postmaster)).toBe(true)

    const second = await startService(embeddedEnv())
    expect(postmasterPid(dataDir)).toBe(postmaster)
    expect((await fetch(`http://127.0.0.1:${second.port}/gallery/events/demo`)).status).toBe(200)
    second.child.kill('SIGTERM')
    const exit = await exitWithin(second, 30_000)

    expect(exit, 'still running').toMatchObject({ code: 0, signal: null })
    expect(
      await until(
        async () => isAlive(postmaster),
        (alive) => !alive,
      ),
      'the postmaster still runs',
    ).toBe(false)
  }, 120_000)
})
