/**
 * Full-stack overhead: our service on a route that is one indexed query, the kiosk context
 * `GET /events/:eventSlug/sets/:setSlug` (Express 5, helmet's headers, request id and log, the edge
 * policies' router, oRPC's OpenAPIHandler, zod input validation, one statement through MikroORM's
 * `em.execute`, the event joined), against a raw Express 5 route on its own `pg` pool sending the
 * very statement the service sends (checked against it at start) and answering the same JSON bytes.
 *
 *   pnpm bench:fullstack            # or: pnpm bench fullstack
 *   DATABASE_URL=postgres://… BENCH_DURATION=20 pnpm bench:fullstack
 *
 * See bench/README.md.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer as createHttpServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { newId } from '@photobooth/server/ids'
import { createLogger } from '@photobooth/server/logger'
import { KIOSK_CONTEXT, type KioskContextRow } from '@photobooth/server/modules/events/events.queries'
import { startServer } from '@photobooth/server/server'
import express, { type Request } from 'express'
import pg from 'pg'

import { CONNECTIONS, DURATION, loadSettingsLine, measureTargets, ratioRow, ROUNDS, sleep } from './load.js'
import { reportRows } from './rows.js'
import { Broken, cleanUp, inTransaction, obtainDatabase, onCleanup, runBenchmark, sendJson, benchSettings } from './support.js'

const TARGET_RATIO = 0.85
const EVENTS = 1_000 // events in the table, so that the lookup needs its indexes
const SETS_PER_EVENT = 5

/**
 * The service's own statement (events.queries.ts), parameters numbered as pg takes them. The run
 * checks it against the statement the service really sent, so that a change of the service shows here.
 */
let parameter = 0
const KIOSK_CONTEXT_SQL = KIOSK_CONTEXT.replace(/\?/g, () => `$${++parameter}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping…`)
    void cleanUp().finally(() => process.exit(130))
  })
}

async function seed(pool: pg.Pool): Promise<{ eventIds: string[] }> {
  const suffix = newId()
    .slice(0, 6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')
  const events = { id: [] as string[], slug: [] as string[], name: [] as string[] }
  const sets = { id: [] as string[], eventId: [] as string[], slug: [] as string[], name: [] as string[] }
  for (let index = 1; index <= EVENTS; index++) {
    const id = newId()
    events.id.push(id)
    events.slug.push(`fullstack-${suffix}-${index}`)
    events.name.push(`Gala "${index}" — Zoë & Björn`)
    for (let set = 1; set <= SETS_PER_EVENT; set++) {
      sets.id.push(newId())
      sets.eventId.push(id)
      sets.slug.push(`set-${set}`)
      sets.name.push(`Stage ${set} <main>`)
    }
  }
  await inTransaction(pool, async (client) => {
    await client.query(
      `insert into event (id, slug, name, start_at) select id, slug, name, now() from unnest($1::text[], $2::text[], $3::text[]) as t (id, slug, name)`,
      [events.id, events.slug, events.name],
    )
    await client.query(
      `insert into event_set (id, event_id, slug, name) select * from unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [sets.id, sets.eventId, sets.slug, sets.name],
    )
  })
  await pool.query('analyze event, event_set')
  console.log(`seeded: ${EVENTS} events × ${SETS_PER_EVENT} sets`)
  return { eventIds: events.id }
}

type Baseline = { url: string; server: Server; inFlight: () => number }

/** A raw Express 5 route: the same statement on its own pg pool, JSON.stringify, writeHead + end. */
function startBaseline(pool: pg.Pool): Promise<Baseline> {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  let inFlight = 0
  app.get('/events/:eventSlug/sets/:setSlug', async (req: Request<{ eventSlug: string; setSlug: string }>, res) => {
    inFlight++
    try {
      const { rows } = await pool.query<KioskContextRow>(KIOSK_CONTEXT_SQL, [req.params.setSlug, req.params.eventSlug])
      const row = rows[0]
      if (!row) return sendJson(res, 404, { error: 'no such set' })
      sendJson(res, 200, {
        set: { id: row.id, slug: row.slug, name: row.name },
        event: { id: row.event_id, slug: row.event_slug, name: row.event_name },
      })
    } finally {
      inFlight--
    }
  })
  const server = createHttpServer(app)
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      resolve({ url: `http://127.0.0.1:${port}`, server, inFlight: () => inFlight })
    })
  })
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url)
  return { status: response.status, text: await response.text() }
}

async function main(): Promise<void> {
  console.log(`full-stack benchmark: node ${process.version}, ${loadSettingsLine()}`)
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-fullstack-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await obtainDatabase(dataDir)
  const settings = benchSettings(dataDir, databaseUrl)
  // The statements the service sends, to check the baseline's against (only while `capturing`).
  const captured: string[] = []
  let capturing = false
  const running = await startServer({
    settings,
    logger: createLogger({ silent: true }),
    onQuery: (sql) => void (capturing && captured.push(sql)),
  })
  onCleanup('our server', () => running.stop())
  const oursBase = `http://127.0.0.1:${running.config.port}`

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  onCleanup('baseline pool', () => pool.end())
  const { eventIds } = await seed(pool)
  if (process.env.DATABASE_URL) {
    onCleanup('seeded rows', async () => void (await pool.query('delete from event where id = any($1::text[])', [eventIds])))
  }
  const baseline = await startBaseline(pool)
  onCleanup('baseline server', async () => {
    await new Promise<void>((resolve) => {
      baseline.server.close(() => resolve())
      baseline.server.closeIdleConnections()
    })
    for (let waited = 0; baseline.inFlight() > 0 && waited < 5_000; waited += 20) await sleep(20)
  })

  const path = `/events/fullstack-${(await pool.query<{ slug: string }>('select slug from event where id = $1', [eventIds[EVENTS / 2]])).rows[0]!.slug.split('fullstack-')[1]}/sets/set-3`
  // The service sends one statement, the baseline's (its parameters inlined in the log).
  capturing = true
  const ours = await get(oursBase + path)
  capturing = false
  const expected = KIOSK_CONTEXT_SQL.replace(/\$\d/g, '?')
  const sent = captured.map((sql) => sql.replace(/'[^']*'|\b\d+\b/g, '?'))
  if (sent.length !== 1 || sent[0] !== expected) {
    throw new Broken(
      `the service sent ${captured.length} statement(s), not the baseline's:\n  service:  ${captured.join('\n            ')}\n  baseline: ${KIOSK_CONTEXT_SQL}`,
    )
  }
  const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(
    `explain ${KIOSK_CONTEXT_SQL.replace('$1', "'set-3'").replace('$2', `'${path.split('/')[2]}'`)}`,
  )
  const usesIndexes = plan.some((line) => /Index/.test(line['QUERY PLAN'])) && !plan.some((line) => /Seq Scan/.test(line['QUERY PLAN']))
  console.log(`one statement, the baseline's; plan:\n${plan.map((line) => `  ${line['QUERY PLAN']}`).join('\n')}`)
  if (!usesIndexes) throw new Broken('the statement does not use the indexes only')

  for (const [label, suffix] of [
    ['kiosk context', path],
    ['unknown set (404)', path.replace('/set-3', '/no-such-set')],
  ] as const) {
    const [a, b] = [label === 'kiosk context' ? ours : await get(oursBase + suffix), await get(baseline.url + suffix)]
    if (a.status !== b.status || a.text !== b.text)
      throw new Broken(`${label}: ours ${a.status} ${a.text.slice(0, 200)}\n  baseline ${b.status} ${b.text.slice(0, 200)}`)
  }
  console.log(
    `identical answers: ${ours.text.length} bytes, and the 404\n\nGET /events/:eventSlug/sets/:setSlug: ours and the raw Express route`,
  )

  const measures = await measureTargets([
    { name: 'raw Express', url: baseline.url + path },
    { name: 'ours', url: oursBase + path },
  ])
  console.log(`\nresults (mean of ${ROUNDS} × ${DURATION}s per target, ${CONNECTIONS} connections):`)
  reportRows([
    ratioRow(
      'full stack (`GET /events/:eventSlug/sets/:setSlug`, one indexed query) ÷ raw Express + pg, same query',
      { label: 'ours', measure: measures.get('ours')! },
      { label: 'raw', measure: measures.get('raw Express')! },
      TARGET_RATIO,
    ),
  ])
}

await runBenchmark(main)
