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

import { CONNECTIONS, DURATION, loadSettingsLine, measureTargets, ratioRow, ROUNDS } from './load.js'
import { reportRows } from './rows.js'
import {
  assertSameAnswers,
  benchSettings,
  Broken,
  cleanUpOnSignals,
  getText,
  inTransaction,
  obtainDatabase,
  onCleanup,
  runBenchmark,
  sendJson,
  sleep,
} from './support.js'

const TARGET_RATIO = 0.85
const EVENTS = 1_000 // events in the table, so that the lookup needs its indexes
const SETS_PER_EVENT = 5

/**
 * The service's own statement (events.queries.ts), parameters numbered as pg takes them. The run
 * checks it against the statement the service really sent, so that a change of the service shows here.
 */
let parameter = 0
const KIOSK_CONTEXT_SQL = KIOSK_CONTEXT.sql.replace(/\?/g, () => `$${++parameter}`)

cleanUpOnSignals()

/**
 * What a kiosk's context carries beside the slugs, on every event but the plain one: a phone country, a
 * listing default, a privacy notice, a language, an idle time and branding with a logo (its PNG is not
 * read by this route, so none is stored). The plain event has none of them: its answer is the bare one.
 */
const DRESSED = {
  phoneCountry: 'GB',
  listGuestsByDefault: false,
  privacyNoticeVersion: '2026-06',
  privacyNoticeUrl: 'https://example.org/privacy',
  privacyNoticeText: 'We keep your email to send you your photos, then delete it after 30 days.',
  language: 'es',
  kioskIdleSeconds: 90,
  branding: { businessName: 'Zoë & Björn Booths', accentColor: '#0a7c86', tagline: 'Smile <3' },
  logo: { hash: 'bench0logo0hash0000000', width: 320, height: 96 },
} as const

async function seed(pool: pg.Pool): Promise<{ eventIds: string[]; slugs: string[] }> {
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
    // Every event dressed but the first (PLAIN_EVENT).
    await client.query(
      `update event set phone_country = $2, list_guests_by_default = $3, privacy_notice_version = $4, privacy_notice_url = $5,
              privacy_notice_text = $6, language = $7, kiosk_idle_seconds = $8, branding = $9::jsonb, logo_hash = $10,
              logo_width = $11, logo_height = $12
        where id = any($1::text[])`,
      [
        events.id.slice(1),
        DRESSED.phoneCountry,
        DRESSED.listGuestsByDefault,
        DRESSED.privacyNoticeVersion,
        DRESSED.privacyNoticeUrl,
        DRESSED.privacyNoticeText,
        DRESSED.language,
        DRESSED.kioskIdleSeconds,
        JSON.stringify(DRESSED.branding),
        DRESSED.logo.hash,
        DRESSED.logo.width,
        DRESSED.logo.height,
      ],
    )
    await client.query(
      `insert into event_set (id, event_id, slug, name) select * from unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [sets.id, sets.eventId, sets.slug, sets.name],
    )
  })
  await pool.query('analyze event, event_set')
  console.log(`seeded: ${EVENTS} events × ${SETS_PER_EVENT} sets (all but one with a phone country, a notice, a language and branding)`)
  return { eventIds: events.id, slugs: events.slug }
}

type Baseline = { url: string; server: Server; inFlight: () => number }

/** The service's default phone country (kiosk/phone.ts), for an event that names none. */
const DEFAULT_PHONE_COUNTRY = 'US'

/**
 * The kiosk context as the service answers it (kiosk.service.ts `loadKioskContext`), written out by
 * hand: the same keys in the same order, optional ones left out when empty. `pnpm bench --quick`
 * (CI) compares it with the service's answer, so a change on either side breaks the build.
 */
function kioskContextJson(row: KioskContextRow, publicUrl: string) {
  const { businessName, businessUrl, accentColor, tagline } = row.branding ?? {}
  const logo =
    row.logo_hash && row.logo_width && row.logo_height
      ? {
          url: `${publicUrl}/brand/${encodeURIComponent(row.event_id)}/${row.logo_hash}.png`,
          width: row.logo_width,
          height: row.logo_height,
        }
      : undefined
  const branding = Object.fromEntries(
    Object.entries({ businessName, businessUrl, accentColor, tagline, logo }).filter(([, value]) => value !== undefined),
  )
  return {
    set: { id: row.id, slug: row.slug, name: row.name },
    event: {
      id: row.event_id,
      slug: row.event_slug,
      name: row.event_name,
      phoneCountry: row.phone_country ?? DEFAULT_PHONE_COUNTRY,
      listGuestsByDefault: row.list_guests_by_default,
      ...(row.privacy_notice_version
        ? {
            privacyNotice: {
              version: row.privacy_notice_version,
              ...(row.privacy_notice_url ? { url: row.privacy_notice_url } : {}),
              ...(row.privacy_notice_text ? { text: row.privacy_notice_text } : {}),
            },
          }
        : {}),
      ...(row.language ? { language: row.language } : {}),
      ...(row.kiosk_idle_seconds ? { kioskIdleSeconds: row.kiosk_idle_seconds } : {}),
      ...(Object.keys(branding).length > 0 ? { branding } : {}),
    },
  }
}

/** A raw Express 5 route: the same statement on its own pg pool, JSON.stringify, writeHead + end. */
function startBaseline(pool: pg.Pool, publicUrl: string): Promise<Baseline> {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  let inFlight = 0
  app.get('/events/:eventSlug/sets/:setSlug', async (req: Request<{ eventSlug: string; setSlug: string }>, res) => {
    inFlight++
    try {
      const { rows } = await pool.query<KioskContextRow>(KIOSK_CONTEXT_SQL, [req.params.setSlug, req.params.eventSlug])
      const row = rows[0]
      if (!row) return sendJson(res, 404, { error: 'no such set', code: 'no_such_set' })
      sendJson(res, 200, kioskContextJson(row, publicUrl))
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
  const { eventIds, slugs } = await seed(pool)
  if (process.env.DATABASE_URL) {
    onCleanup('seeded rows', async () => void (await pool.query('delete from event where id = any($1::text[])', [eventIds])))
  }
  const baseline = await startBaseline(pool, running.config.publicUrl)
  onCleanup('baseline server', async () => {
    await new Promise<void>((resolve) => {
      baseline.server.close(() => resolve())
      baseline.server.closeIdleConnections()
    })
    for (let waited = 0; baseline.inFlight() > 0 && waited < 5_000; waited += 20) await sleep(20)
  })

  // The measured kiosk: a dressed event's (every optional field of the context answered).
  const eventSlug = slugs[EVENTS / 2]!
  const path = `/events/${eventSlug}/sets/set-3`
  // The service sends one statement, the baseline's (its parameters inlined in the log).
  capturing = true
  const ours = await getText(oursBase + path)
  capturing = false
  if (ours.status !== 200) throw new Broken(`the kiosk context answered ${ours.status}: ${ours.text.slice(0, 300)}`)
  const expected = KIOSK_CONTEXT_SQL.replace(/\$\d/g, '?')
  const sent = captured.map((sql) => sql.replace(/'[^']*'|\b\d+\b/g, '?'))
  if (sent.length !== 1 || sent[0] !== expected) {
    throw new Broken(
      `the service sent ${captured.length} statement(s), not the baseline's:\n  service:  ${captured.join('\n            ')}\n  baseline: ${KIOSK_CONTEXT_SQL}`,
    )
  }
  const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(
    `explain ${KIOSK_CONTEXT_SQL.replace('$1', "'set-3'").replace('$2', `'${eventSlug}'`)}`,
  )
  const usesIndexes = plan.some((line) => /Index/.test(line['QUERY PLAN'])) && !plan.some((line) => /Seq Scan/.test(line['QUERY PLAN']))
  console.log(`one statement, the baseline's; plan:\n${plan.map((line) => `  ${line['QUERY PLAN']}`).join('\n')}`)
  if (!usesIndexes) throw new Broken('the statement does not use the indexes only')

  // Byte for byte the same answers: the dressed kiosk, a plain one (every optional field left out), a 404.
  const answers = []
  for (const [label, suffix] of [
    ['kiosk context (an event with a notice, a language, branding)', path],
    ['kiosk context (an event with none of them)', `/events/${slugs[0]!}/sets/set-1`],
    ['unknown set (404)', path.replace('/set-3', '/no-such-set')],
  ] as const) {
    answers.push(await assertSameAnswers(label, oursBase + suffix, baseline.url + suffix))
  }
  if (!answers[0]!.includes('"privacyNotice"') || !answers[0]!.includes('"logo"') || answers[1]!.includes('"branding"'))
    throw new Broken(`the seeded events are not answered as seeded:\n  ${answers[0]}\n  ${answers[1]}`)
  console.log(
    `identical answers: ${answers[0]!.length} bytes (dressed event), ${answers[1]!.length} bytes (plain event), and the 404\n\n` +
      'GET /events/:eventSlug/sets/:setSlug: ours and the raw Express route',
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
