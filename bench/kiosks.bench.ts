/**
 * Registration under a burst: 200 kiosks (one per set) each send `POST /sets/:setId/sessions` with
 * 12 guests at the same moment, for a few rounds. The guests are drawn from one crowd of people
 * who register at several kiosks at once (the same email, the same phone, typed differently), so
 * the customer linking races itself. Then: every answer must be a 201, no two customers may share an
 * email or a phone, and every guest must be linked to a customer of its own email or phone.
 *
 *   pnpm bench:kiosks                   # or: pnpm bench kiosks
 *   BENCH_KIOSKS=400 BENCH_KIOSK_ROUNDS=10 pnpm bench:kiosks
 *
 * The service's rate limit (60 registrations a minute per client IP) is left as it is: like kiosks
 * behind an edge proxy, each kiosk sends its own client IP in a header that the service is told to
 * read (`CLIENT_IP_HEADER`), so each counts on its own. The client runs in a worker thread, the
 * service on this process's main thread. See bench/README.md.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'

import { loadSettings, type Settings } from '@photobooth/server/config'
import { newId } from '@photobooth/server/ids'
import { createLogger } from '@photobooth/server/logger'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { startServer } from '@photobooth/server/server'
import pg from 'pg'

import { reportRows, verdict, type Row } from './rows.js'
import { answerHolds, Broken, cleanUpOnSignals, envNumber, obtainDatabase, onCleanup, percentile, runBenchmark } from './support.js'

// Quick mode: one burst of 50 kiosks.
const KIOSKS = Math.round(envNumber('BENCH_KIOSKS', 200, 1, 50))
const GUESTS = 12 // per registration: the most a session takes
const ROUNDS = Math.round(envNumber('BENCH_KIOSK_ROUNDS', 5, 1, 1)) // bursts, one after the other
/** People in the crowd: each round's KIOSKS × 12 guests are drawn from them, so each comes back ~2× a round. */
const PEOPLE = Math.max(GUESTS, Math.round((KIOSKS * GUESTS) / 2))
const CLIENT_IP_HEADER = 'X-Bench-Client-Ip'
const PAUSE_MS = 500 // between rounds

cleanUpOnSignals()

type Guest = { name: string; email?: string; phone?: string }
type Request = { setId: string; ip: string; body: string }
type Answer = { status: number; ms: number; text: string }

const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!

/** Person `n`: always the same email and phone, typed as a guest might (capitals, phone formats). */
function guestFor(n: number, domain: string): Guest {
  const digits = String(1000 + n).padStart(4, '0')
  const email = `guest.${n}@${domain}`
  const typedEmail = Math.random() < 0.3 ? email.replace(/^g/, 'G').toUpperCase() : email
  const phone = pick([`(415) 555-${digits}`, `+1 415-555-${digits}`, `415.555.${digits}`, `+14155550000`.slice(0, -4) + digits])
  const name = `${pick(['Ada', 'Zoë', 'Grace', 'Björn', 'José', 'Mei'])} ${pick(['Lovelace', 'Hopper', 'Núñez', "O'Brien"])} ${n}`
  const contact = Math.random()
  return contact < 0.4 ? { name, email: typedEmail } : contact < 0.7 ? { name, phone } : { name, email: typedEmail, phone }
}

/** The client: each round, every kiosk's request at once (a fetch each, own connection); answers and latencies back. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads')
const { url, header, rounds, pauseMs } = workerData
;(async () => {
  const answers = []
  for (const [index, requests] of rounds.entries()) {
    const started = performance.now()
    const round = await Promise.all(requests.map(async (request) => {
      const t0 = performance.now()
      try {
        const response = await fetch(url + '/sets/' + request.setId + '/sessions', {
          method: 'POST',
          headers: { 'content-type': 'application/json', [header]: request.ip, 'idempotency-key': crypto.randomUUID() },
          body: request.body,
        })
        const text = await response.text()
        return { status: response.status, ms: performance.now() - t0, text: response.status === 201 ? '' : text.slice(0, 300) }
      } catch (error) {
        return { status: 0, ms: performance.now() - t0, text: String(error && error.cause || error) }
      }
    }))
    parentPort.postMessage({ progress: { round: index + 1, ms: performance.now() - started, statuses: round.map((a) => a.status) } })
    answers.push(round)
    await new Promise((resolve) => setTimeout(resolve, pauseMs))
  }
  parentPort.postMessage({ answers })
})()
`

function runClient(url: string, rounds: Request[][]): Promise<{ answers: Answer[][]; roundMs: number[] }> {
  return new Promise((resolve, reject) => {
    const roundMs: number[] = []
    const worker = new Worker(CLIENT, { eval: true, workerData: { url, header: CLIENT_IP_HEADER, rounds, pauseMs: PAUSE_MS } })
    worker.on('message', (message: { progress?: { round: number; ms: number; statuses: number[] }; answers?: Answer[][] }) => {
      if (message.progress) {
        const { round, ms, statuses } = message.progress
        roundMs.push(ms)
        const counts = new Map<number, number>()
        for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
        console.log(
          `  round ${round}: ${statuses.length} registrations in ${ms.toFixed(0)} ms; ${[...counts].map(([status, count]) => `${count} × ${status || 'no answer'}`).join(', ')}`,
        )
      }
      if (message.answers) {
        resolve({ answers: message.answers, roundMs })
        void worker.terminate()
      }
    })
    worker.once('error', reject)
  })
}

async function main(): Promise<void> {
  console.log(
    `kiosk burst benchmark: node ${process.version}, ${KIOSKS} kiosks × ${GUESTS} guests at once, ${ROUNDS} rounds, a crowd of ${PEOPLE} people`,
  )
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-kiosks-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await obtainDatabase(dataDir)
  const base = loadSettings({ MODE: 'development', DATA_DIR: dataDir, PURGE: 'off' })
  const settings: Settings = {
    ...base,
    databaseUrl,
    host: '127.0.0.1',
    port: 0,
    seedDemo: false,
    rateLimits: { ...base.rateLimits, clientIpHeader: CLIENT_IP_HEADER },
    delivery: { ...base.delivery, dispatch: false },
  }
  const running = await startServer({ settings, logger: createLogger({ silent: true }) })
  onCleanup('our server', () => running.stop())
  const url = `http://127.0.0.1:${running.config.port}`

  const suffix = newId()
    .slice(0, 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')
  const domain = `k${suffix}.bench.example`
  const { event, sets } = await createEvent(running.orm.em.fork(), {
    slug: `bench-kiosks-${suffix}`,
    name: 'Kiosk burst',
    startAt: new Date(),
    sets: Array.from({ length: KIOSKS }, (_, index) => ({ slug: `kiosk-${index + 1}`, name: `Kiosk ${index + 1}` })),
  })
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  onCleanup('check pool', () => pool.end())
  if (process.env.DATABASE_URL) {
    onCleanup('seeded rows', async () => {
      await pool.query('delete from event where id = $1', [event.id])
      await pool.query(`delete from customer where email like $1 or phone like '+1415555%'`, [`%@${domain}`])
    })
  }

  // Each kiosk's body per round: 12 different people of the crowd.
  const rounds: Request[][] = Array.from({ length: ROUNDS }, () =>
    sets.map((set, index) => {
      const people = new Set<number>()
      while (people.size < GUESTS) people.add(Math.floor(Math.random() * PEOPLE))
      return {
        setId: set.id,
        ip: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
        body: JSON.stringify({ guests: [...people].map((n) => guestFor(n, domain)) }),
      }
    }),
  )
  const { answers, roundMs } = await runClient(url, rounds)
  const all = answers.flat()
  const errors = all.filter((answer) => answer.status !== 201)
  const sorted = all.map((answer) => answer.ms).sort((a, b) => a - b)

  const [duplicateEmails, duplicatePhones, mislinked, counts] = await Promise.all([
    pool.query<{ n: number }>(
      `select count(*)::int as n from (select lower(email) from customer where email is not null group by lower(email) having count(*) > 1) d`,
    ),
    pool.query<{ n: number }>(
      `select count(*)::int as n from (select phone from customer where phone is not null group by phone having count(*) > 1) d`,
    ),
    pool.query<{ n: number }>(
      `select count(*)::int as n from session_guest g join session s on s.id = g.session_id join event_set es on es.id = s.set_id
         left join customer c on c.id = g.customer_id
        where es.event_id = $1 and (lower(g.email) = lower(c.email) or g.phone = c.phone) is not true`,
      [event.id],
    ),
    pool.query<{ sessions: number; guests: number; customers: number }>(
      `select (select count(*)::int from session s join event_set es on es.id = s.set_id where es.event_id = $1) as sessions,
              (select count(*)::int from session_guest g join session s on s.id = g.session_id join event_set es on es.id = s.set_id where es.event_id = $1) as guests,
              (select count(*)::int from customer where email like $2 or phone like '+1415555%') as customers`,
      [event.id, `%@${domain}`],
    ),
  ])
  const created = all.length - errors.length
  const { sessions, guests, customers } = counts.rows[0]!
  if (sessions !== created || guests !== created * GUESTS) {
    throw new Broken(
      `${created} registrations answered 201, but ${sessions} sessions and ${guests} guests are stored (expected ${created * GUESTS})`,
    )
  }
  for (const error of errors.slice(0, 5)) console.log(`  error: ${error.status || 'no answer'} ${error.text}`)
  const duplicates = duplicateEmails.rows[0]!.n + duplicatePhones.rows[0]!.n
  const p = (value: number) => `${value.toFixed(0)} ms`
  const where = `${ROUNDS} burst${ROUNDS === 1 ? '' : 's'} of ${KIOSKS} × ${GUESTS} guests`
  const rows: Row[] = [
    {
      row: `${KIOSKS} kiosks registering ${GUESTS} guests at once: errors`,
      value: String(errors.length),
      figures: `${all.length} registrations (${where}), ${created} × 201; burst drained in ${roundMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`,
      target: '0',
      result: verdict(
        answerHolds(
          errors.length === 0,
          `${errors.length} of ${all.length} registrations not answered 201 (${[...new Set(errors.map((error) => error.status || 'no answer'))].join(', ')})`,
        ),
      ),
    },
    {
      row: `${KIOSKS} kiosks registering ${GUESTS} guests at once: duplicate customers`,
      value: String(duplicates),
      figures: `${duplicateEmails.rows[0]!.n} emails and ${duplicatePhones.rows[0]!.n} phones on more than one customer; ${customers} customers for ${guests} guests of a crowd of ${PEOPLE}; ${mislinked.rows[0]!.n} guests linked to a customer of neither their email nor their phone`,
      target: '0',
      result: verdict(
        answerHolds(
          duplicates === 0 && mislinked.rows[0]!.n === 0,
          `${duplicates} duplicate customers, ${mislinked.rows[0]!.n} guests linked to a customer of neither their email nor their phone`,
        ),
      ),
    },
    {
      row: `${KIOSKS} kiosks registering ${GUESTS} guests at once: latency`,
      value: `p99 ${p(percentile(sorted, 99))}`,
      figures: `p50 ${p(percentile(sorted, 50))}, p90 ${p(percentile(sorted, 90))}, p99 ${p(percentile(sorted, 99))}, max ${p(sorted.at(-1)!)} over ${all.length} registrations`,
      target: '(printed)',
      result: 'info',
    },
  ]
  reportRows(rows)
}

await runBenchmark(main)
