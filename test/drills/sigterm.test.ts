/**
 * Drill: SIGTERM under keep-alive load, on the built server. test/http/shutdown.test.ts already
 * drills SIGTERM under keep-alive load (8 connections of reads, 3 registrations held mid-body) on
 * the sources run through tsx; this drill adds what it does not: the bundle production runs
 * (`node main.js`, built as `pnpm build` builds it, in production mode) and many busy keep-alive
 * connections (64), writes among them (registrations), and a check that what was written is what
 * was answered.
 *
 * The bundle is built into a folder of the drill's own (server/dist is `pnpm build`'s, and
 * test/build/built-server.test.ts's) by server/build.ts itself, and a `node_modules`
 * link to the server's dependencies so that the bundle's imports resolve as from server/dist.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, symlink } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { migrate, openOrm, type Orm } from '@photobooth/server/db/orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { seedEvent, seedSession } from '../support/harness.js'
import { freePort, productionEnv } from '../support/processes.js'

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url))
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const run = promisify(execFile)
const CONNECTIONS = 64
const GRACE_MS = 8_000
const IP_HEADER = 'x-drill-client-ip'

const databases = scratchDatabases('drill_term')
let databaseUrl: string
let orm: Orm
let bundle: string
let child: ChildProcess | undefined

beforeAll(async () => {
  bundle = await mkdtemp(join(tmpdir(), 'photobooth-drill-bundle-'))
  // Built as `pnpm build` builds it, into a folder of the test's own.
  await run(process.execPath, ['--import', 'tsx', 'server/build.ts', bundle], { cwd: ROOT })
  await symlink(join(SERVER, 'node_modules'), join(bundle, 'node_modules'), 'dir')
  databaseUrl = await databases.create()
  orm = await openOrm(databaseUrl)
  await migrate(orm)
})

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  await orm?.close()
  await databases.dropAll()
  if (bundle) await rm(bundle, { recursive: true, force: true })
})

type Answer = {
  status: number
  connection: number
  close: boolean
  path: string
  body: string
  afterStopping: boolean
  afterSignal: boolean
}

describe('SIGTERM on the built server', () => {
  it('when SIGTERM comes while 64 keep-alive connections read and register, then no answer is >= 500, what was written is what was answered, and it exits 0 within the grace', async () => {
    const { event, sets } = await seedEvent(orm)
    const gallery = await seedSession(orm, sets[0]!.id, { photos: 3 })
    const port = await freePort()
    child = spawn(process.execPath, [join(bundle, 'main.js')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The drain itself, at once: the delay a balancer needs before it (production's default) is the rolling-restart drill's.
      env: productionEnv(port, databaseUrl, {
        DELIVERY: 'off',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
        SHUTDOWN_DELAY_MS: '0',
        CLIENT_IP_HEADER: IP_HEADER,
        // The drill's clients all connect from here: the edge, as far as the instance knows.
        TRUSTED_PROXIES: 'loopback',
      }),
    })
    const service = child
    let stderr = ''
    service.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
      service.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    )
    let stoppingSeen = false
    let signalSent = false
    let onStopping: () => void = () => {}
    const stopping = new Promise<void>((resolve) => (onStopping = resolve))
    await new Promise<void>((resolve, reject) => {
      void exited.then(({ code, signal }) =>
        reject(new Error(`the built server exited (${signal ?? code}) before it listened:\n${stderr}`)),
      )
      createInterface({ input: service.stdout! }).on('line', (line) => {
        if (line.includes('"photo booth service listening"')) resolve()
        if (line.includes('"message":"stopping"')) {
          stoppingSeen = true
          onStopping()
        }
      })
    })

    // The load: every connection sends its next request as soon as the last is answered, until
    // the server no longer takes it.
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
    const answers: Answer[] = []
    const failures: string[] = []
    /** Registrations sent, by guest email, and those answered 201 (with their session id). */
    const registrationsSent = new Set<string>()
    const registered = new Map<string, string>()
    const sockets = new Map<object, number>()
    let sent = 0
    let warm: () => void = () => {}
    const warmedUp = new Promise<void>((resolve) => (warm = resolve))
    const reads = [
      `/gallery/events/${event.slug}`,
      `/events/${event.slug}/sets/set-1`,
      `/gallery/${gallery.id}`,
      `/g/${gallery.id}`,
      '/healthz',
      '/gallery/no-such-gallery',
    ]
    const one = (n: number) =>
      new Promise<boolean>((resolve) => {
        const afterStopping = stoppingSeen
        const write = n % 3 === 0
        const email = `term-${n}@example.org`
        const body = JSON.stringify({ guests: [{ name: `Term ${n}`, email }] })
        const path = write ? `/sets/${sets[0]!.id}/sessions` : reads[n % reads.length]!
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path,
            agent,
            method: write ? 'POST' : 'GET',
            headers: write
              ? {
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(body),
                  [IP_HEADER]: `10.3.${(n >> 8) & 255}.${n & 255}`,
                }
              : {},
          },
          (res) => {
            if (!sockets.has(res.socket)) sockets.set(res.socket, sockets.size + 1)
            const connection = sockets.get(res.socket)!
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (chunk: string) => (text += chunk))
            res.on('end', () => {
              answers.push({
                status: res.statusCode!,
                connection,
                close: res.headers.connection === 'close',
                path,
                body: text,
                afterStopping,
                afterSignal: signalSent,
              })
              if (write && res.statusCode === 201) registered.set(email, (JSON.parse(text) as { id: string }).id)
              if (answers.length >= CONNECTIONS * 4) warm()
              resolve(true)
            })
            res.on('error', (error: NodeJS.ErrnoException) => {
              failures.push(error.code ?? error.message)
              resolve(false)
            })
          },
        )
        req.on('error', (error: NodeJS.ErrnoException) => {
          failures.push(error.code ?? error.message)
          resolve(false)
        })
        if (write) registrationsSent.add(email)
        req.end(write ? body : undefined)
      })
    const load = Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (await one(sent++));
      }),
    ).then(() => agent.destroy())
    await warmedUp

    const signalledAt = Date.now()
    const inFlightAtSignal = sent - answers.length - failures.length
    signalSent = true
    service.kill('SIGTERM')
    await stopping
    let timer: NodeJS.Timeout | undefined
    const exit = await Promise.race([
      exited,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), GRACE_MS + 5_000))),
    ])
    clearTimeout(timer)
    await load

    expect(exit, 'still running after the grace').toMatchObject({ code: 0, signal: null })
    expect(exit!.at - signalledAt).toBeLessThan(GRACE_MS)
    expect(stderr).toBe('')
    // The requests on their way when the signal came were answered.
    expect(answers.filter((answer) => answer.afterSignal).length).toBeGreaterThan(0)
    expect(answers.filter((answer) => answer.status >= 500).map((answer) => `${answer.status} ${answer.path} ${answer.body}`)).toEqual([])
    // Every answer given once the drain had begun said it was its connection's last. A connection idle
    // when the drain began is ended after its linger without another answer (its client reads the end
    // of the stream): its last answer may say keep-alive; a request lost on it is a failure below.
    expect(answers.filter((answer) => answer.afterStopping && !answer.close)).toEqual([])
    // The clients' failures are at the connection level only: new connections refused once it no
    // longer listens (and, rarely, a request that crossed the close of its idle connection).
    expect(failures.filter((failure) => !['ECONNREFUSED', 'ECONNRESET'].includes(failure))).toEqual([])

    // What was written is exactly what was answered 201: no registration lost with its answer, none
    // done for a request that got none.
    const rows = await orm.em
      .fork()
      .execute<{ id: string; email: string }[]>(
        'select s.id, g.email from session s join session_guest g on g.session_id = s.id where s.set_id = ? and s.id <> ?',
        [sets[0]!.id, gallery.id],
      )
    expect(new Map(rows.map((row) => [row.email, row.id]))).toEqual(registered)
    expect(
      answers
        .filter((answer) => answer.path.endsWith('/sessions') && answer.status !== 201)
        .map((answer) => `${answer.status} ${answer.body}`),
    ).toEqual([])

    const resets = failures.filter((failure) => failure === 'ECONNRESET').length
    console.info(
      `sigterm drill: ${answers.length} answers on ${sockets.size} connections (${answers.filter((answer) => answer.afterSignal).length} after the signal), ` +
        `${inFlightAtSignal} requests in flight at the signal, ${registered.size} of ${registrationsSent.size} registrations answered 201, ` +
        `exit after ${exit!.at - signalledAt} ms, client failures: ${failures.length - resets} refused, ${resets} reset`,
    )
  }, 60_000)
})
