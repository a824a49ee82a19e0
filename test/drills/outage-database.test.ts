/**
 * Drill: the database goes away under load, and comes back. The service (in this process) reaches
 * PostgreSQL through a TCP proxy the drill controls; six clients keep asking the routes that read
 * or write the database (the gallery and event JSON, the kiosk context, a registration, a gallery
 * page under /g/) and /readyz, while the proxy is cut (PostgreSQL "died": connections reset, new
 * ones refused) and then stalled (a partition: connections open, not a byte through).
 *
 * Asserts, for each: every request gets an answer, none later than the documented bound (a free
 * connection of the pool within DATABASE_ACQUIRE_TIMEOUT_MS, then a statement within
 * DATABASE_TIMEOUT_MS and the client's 1 s more: 16 s with the defaults); the JSON routes answer 503
 * `{ "error": "The database is unavailable. Try again in a moment." }` with a Retry-After, the
 * gallery page 503 text/html saying to try again in a moment, /readyz 503; nothing is left
 * unhandled (this process would fail); and once the proxy is restored, the routes answer 2xx again
 * without a restart (the time to recover is printed).
 */
import { randomBytes } from 'node:crypto'

import { openOrm, type Orm } from '@photobooth/server/db/orm'
import { DEFAULT_DATABASE_TIMEOUTS } from '@photobooth/server/db/timeouts'
import { createLogger } from '@photobooth/server/logger'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { seedEvent, seedSession, startTestServer, type TestServer } from '../support/harness.js'
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcp-proxy.js'
import { explain, notJson } from '../support/drill-output.js'

const IP_HEADER = 'x-drill-client-ip'
const DATABASE_UNAVAILABLE = { error: 'The database is unavailable. Try again in a moment.', code: 'database_unavailable' }
/** The documented bound on any request while the database is away (docs/production.md, Outages). */
const LONGEST_WAIT_MS = DEFAULT_DATABASE_TIMEOUTS.acquireMs + DEFAULT_DATABASE_TIMEOUTS.statementMs + 1_000
const CUT_MS = 5_000
/**
 * Longer than a statement's wait (5 s + 1 s) with the pool full: a request asked as the stall begins
 * is answered while it lasts. Those asked later may be answered after it, within the bound.
 */
const STALL_MS = 11_000

const databases = scratchDatabases('outage_db')
let proxy: TcpProxy
let app: TestServer
let orm: Orm
const logLines: string[] = []
let routes: Route[]

type Kind = 'json' | 'page' | 'ready'
type Route = { name: string; kind: Kind; method: 'GET' | 'POST'; path: string; body?: () => unknown }
type Answer = {
  route: string
  kind: Kind
  status: number
  ms: number
  startedAt: number
  endedAt: number
  contentType: string
  retryAfter: string | null
  body: string
  failure?: string
}

beforeAll(async () => {
  const directUrl = await databases.create()
  proxy = await startTcpProxy(targetOf(directUrl))
  app = await startTestServer(
    { databaseUrl: proxy.through(directUrl), rateLimits: { windowMs: 60_000, clientIpHeader: IP_HEADER } },
    { logger: createLogger({ level: 'info', write: (line) => void logLines.push(line) }) },
  )
  // The drill's own reads and writes go around the proxy.
  orm = await openOrm(directUrl)
  const { event, sets } = await seedEvent(orm)
  const gallery = await seedSession(orm, sets[0]!.id, { photos: 2 })
  let guest = 0
  routes = [
    { name: 'gallery JSON', kind: 'json', method: 'GET', path: `/gallery/${gallery.id}` },
    { name: 'event JSON', kind: 'json', method: 'GET', path: `/gallery/events/${event.slug}` },
    { name: 'kiosk context', kind: 'json', method: 'GET', path: `/events/${event.slug}/sets/set-1` },
    {
      name: 'registration',
      kind: 'json',
      method: 'POST',
      path: `/sets/${sets[0]!.id}/sessions`,
      body: () => ({ guests: [{ name: `Outage ${++guest}`, email: `outage-${guest}-${randomBytes(3).toString('hex')}@example.org` }] }),
    },
    { name: 'gallery page', kind: 'page', method: 'GET', path: `/g/${gallery.id}` },
    { name: 'readyz', kind: 'ready', method: 'GET', path: '/readyz' },
  ]
})

afterAll(async () => {
  proxy?.restore()
  await app?.stop()
  await orm?.close()
  await proxy?.close()
  await databases.dropAll()
})

let ip = 0
async function ask(route: Route): Promise<Answer> {
  const startedAt = Date.now()
  const address = `10.9.${(++ip >> 8) & 255}.${ip & 255}`
  try {
    const response = await fetch(`${app.url}${route.path}`, {
      method: route.method,
      headers: { [IP_HEADER]: address, ...(route.body ? { 'content-type': 'application/json' } : {}) },
      body: route.body ? JSON.stringify(route.body()) : undefined,
      // Well past the bound: an answer that late is recorded as one, not lost.
      signal: AbortSignal.timeout(LONGEST_WAIT_MS + 10_000),
    })
    const body = await response.text().catch((error: unknown) => new Error(`${response.status}, its body cut: ${explain(error)}`))
    const endedAt = Date.now()
    if (body instanceof Error)
      return {
        route: route.name,
        kind: route.kind,
        status: response.status,
        ms: endedAt - startedAt,
        startedAt,
        endedAt,
        contentType: '',
        retryAfter: null,
        body: '',
        failure: body.message,
      }
    return {
      route: route.name,
      kind: route.kind,
      status: response.status,
      ms: endedAt - startedAt,
      startedAt,
      endedAt,
      contentType: response.headers.get('content-type') ?? '',
      retryAfter: response.headers.get('retry-after'),
      body,
    }
  } catch (error) {
    const endedAt = Date.now()
    return {
      route: route.name,
      kind: route.kind,
      status: 0,
      ms: endedAt - startedAt,
      startedAt,
      endedAt,
      contentType: '',
      retryAfter: null,
      body: '',
      failure: explain(error),
    }
  }
}

/** One client per route, each asking again 100 ms after its last answer, until `stop()`. */
function startLoad() {
  const answers: Answer[] = []
  let running = true
  const clients = routes.map(async (route) => {
    while (running) {
      answers.push(await ask(route))
      if (running) await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })
  return {
    answers,
    stop: async () => {
      running = false
      await Promise.all(clients)
      return answers
    },
  }
}

/** What an answer given while the database is away must be, or why it is not. */
function outageProblem(answer: Answer): string | undefined {
  if (answer.failure) return `no answer: ${answer.failure}`
  if (answer.ms > LONGEST_WAIT_MS) return `answered after ${answer.ms} ms`
  if (answer.status !== 503) return `status ${answer.status}: ${answer.body.slice(0, 200)}`
  if (answer.kind === 'ready') return undefined
  if (!answer.retryAfter || !/^\d+$/.test(answer.retryAfter)) return `no Retry-After (${answer.retryAfter})`
  if (answer.kind === 'page') {
    if (!answer.contentType.startsWith('text/html')) return `a page answered ${answer.contentType}`
    return /try again in a moment/i.test(answer.body) ? undefined : `a page without "try again in a moment": ${answer.body.slice(0, 200)}`
  }
  if (!answer.contentType.startsWith('application/json')) return `JSON route answered ${answer.contentType}`
  try {
    return JSON.stringify(JSON.parse(answer.body)) === JSON.stringify(DATABASE_UNAVAILABLE)
      ? undefined
      : `body ${answer.body.slice(0, 200)}`
  } catch {
    return `body is not JSON: ${answer.body.slice(0, 200)}`
  }
}

const ok = (answer: Answer) => !answer.failure && answer.status >= 200 && answer.status < 300

/** Asks the gallery JSON until it answers 200, and says how long that took. */
async function timeToRecover(from: number, ms = 20_000): Promise<number> {
  const deadline = from + ms
  for (;;) {
    const answer = await ask(routes[0]!)
    if (answer.status === 200) return answer.endedAt - from
    if (Date.now() > deadline)
      throw new Error(`the database routes did not recover within ${ms} ms; last answer ${answer.status} ${answer.body.slice(0, 200)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function summary(label: string, answers: Answer[], recoveredMs: number) {
  const byStatus: Record<string, number> = {}
  for (const answer of answers)
    byStatus[answer.failure ? 'none' : answer.status] = (byStatus[answer.failure ? 'none' : answer.status] ?? 0) + 1
  const longest = Math.max(...answers.map((answer) => answer.ms))
  return `database ${label}: ${answers.length} requests, answers ${JSON.stringify(byStatus)}, longest wait ${longest} ms, time to recover ${recoveredMs} ms`
}

/** The drill: warm, break the proxy `how` for `ms` under load, restore, and check every answer. */
async function drill(how: 'cut' | 'stall', ms: number) {
  // Warm: every route answers as it should before anything breaks.
  for (const route of routes) expect((await ask(route)).status, route.name).toBeLessThan(300)

  const load = startLoad()
  // The load is running (one answer per client) before the fault.
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (load.answers.length >= routes.length) {
        clearInterval(check)
        resolve()
      }
    }, 10)
  })
  const brokenAt = Date.now()
  if (how === 'cut') proxy.cut()
  else proxy.stall()
  await new Promise((resolve) => setTimeout(resolve, ms))
  const restoredAt = Date.now()
  proxy.restore()
  const recoveredMs = await timeToRecover(restoredAt)
  const recoveredAt = restoredAt + recoveredMs
  // A moment of load after the recovery: every route answers again.
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  const answers = await load.stop()

  const during = answers.filter((answer) => answer.startedAt >= brokenAt && answer.endedAt <= restoredAt)
  const across = answers.filter((answer) => answer.startedAt < restoredAt && answer.endedAt > restoredAt)
  // In flight at some moment while it was away (a request in flight at the stall's start waits out its
  // bound, and the one asked after it may meet the restore).
  const askedDuring = answers.filter((answer) => answer.endedAt > brokenAt && answer.startedAt < restoredAt)
  const after = answers.filter((answer) => answer.startedAt > recoveredAt)
  console.log(summary(how, answers, recoveredMs), `(${during.length} wholly during the ${how}, ${after.length} after the recovery)`)

  // Every request got an answer, within the bound.
  expect(
    answers.filter((answer) => answer.failure || answer.ms > LONGEST_WAIT_MS).map((a) => `${a.route}: ${a.failure ?? `${a.ms} ms`}`),
  ).toEqual([])
  // While the database was away: each route was asked and answered in its outage shape.
  const answeredAsOutage = new Set(askedDuring.filter((answer) => !outageProblem(answer)).map((answer) => answer.route))
  const unanswered = routes.filter((route) => !answeredAsOutage.has(route.name))
  expect(
    unanswered.map((route) => [
      route.name,
      askedDuring
        .filter((answer) => answer.route === route.name)
        .map((answer) => `asked ${answer.startedAt - brokenAt} ms in: ${outageProblem(answer) ?? 'ok'}`),
    ]),
  ).toEqual([])
  expect(during.map((answer) => [answer.route, outageProblem(answer)]).filter(([, problem]) => problem)).toEqual([])
  // Those in flight when it came back: either their outage answer or a success.
  expect(across.map((answer) => [answer.route, ok(answer) ? undefined : outageProblem(answer)]).filter(([, problem]) => problem)).toEqual(
    [],
  )
  // Back without a restart: everything asked after the recovery succeeds.
  expect(new Set(after.map((answer) => answer.route))).toEqual(new Set(routes.map((route) => route.name)))
  expect(after.filter((answer) => !ok(answer)).map((answer) => `${answer.route}: ${answer.status} ${answer.body.slice(0, 200)}`)).toEqual(
    [],
  )
  expect(recoveredMs).toBeLessThan(LONGEST_WAIT_MS)
}

describe('the database goes away under load', () => {
  it('when PostgreSQL is cut (connections reset, new ones refused) and comes back, then every request is answered 503 within its bound, and the routes recover without a restart', async () => {
    await drill('cut', CUT_MS)
  }, 120_000)

  it('when PostgreSQL stalls (connections open, no byte through) and comes back, then every request is answered 503 within its bound, and the routes recover without a restart', async () => {
    await drill('stall', STALL_MS)
    // The log stayed JSON, line by line, through both.
    expect(notJson(logLines)).toEqual([])
  }, 120_000)
})
