/**
 * `pnpm bench`: every benchmark, one after the other, each in its own process, then one table.
 *
 *   pnpm bench                  # all of them; the table goes into bench/README.md
 *   pnpm bench gallery zip      # only those, in the order of BENCHES (README untouched)
 *   pnpm bench --quick [names]  # quick mode, as CI runs it: every answer checked, one short round, nothing judged
 *   pnpm bench --list           # the names
 *
 * Each benchmark is `node --import tsx bench/<name>.bench.ts` with `BENCH_ROWS_FILE` set: it prints
 * its own output and table, and appends its rows to that file as JSON lines (bench/rows.ts). The
 * runner then prints one markdown table of every row, and on a full run writes it into
 * bench/README.md between the `bench:table` markers. It exits 1 only when a benchmark broke (exited
 * non-zero: a crash, or a check of the answers that failed), never for a FAIL row.
 *
 * `--quick` sets `BENCH_QUICK=1` for every benchmark (bench/support.ts says what that changes), runs
 * two at a time (`BENCH_JOBS`), each on a database of its own in one embedded PostgreSQL the runner
 * starts (unless `DATABASE_URL` is given: then one at a time, on it), prints each one's output once
 * it has ended, and never writes the README.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

import { startEmbeddedPostgres } from '@photobooth/server/db/embedded-postgres'
import pg from 'pg'

import { formatTable, ROWS_FILE_VARIABLE, type Row } from './rows.js'
import { envNumber, freePort, QUICK_VARIABLE } from './support.js'

/**
 * The benchmarks, in the order they run. Adding one is one line here: its name (for
 * `pnpm bench <name>`), its script, and what it measures. The script follows bench/rows.ts.
 */
const BENCHES: { name: string; script: string; what: string }[] = [
  { name: 'gallery', script: 'gallery.bench.ts', what: 'gallery JSON routes and their 304s vs a pg + Express baseline; the guest page' },
  { name: 'fullstack', script: 'fullstack.bench.ts', what: 'the full stack on one indexed query vs a raw Express route' },
  { name: 'zip', script: 'zip.bench.ts', what: 'a 1 GB zip vs reading the files' },
  { name: 'kiosks', script: 'kiosks.bench.ts', what: '200 kiosks registering 12 guests at once' },
  { name: 'delivery', script: 'delivery.bench.ts', what: 'delivery drain of 10,000 messages, one and two instances' },
  {
    name: 'copies',
    script: 'copies.bench.ts',
    what: 'photo copies of camera JPEGs: one session to ready, a burst of 50 sessions (time, peak RSS), completion while busy, the full-size quality',
  },
  { name: 'startup', script: 'startup.bench.ts', what: 'the built server: cold and warm start to the first 200 of /readyz' },
  { name: 'sdk', script: 'sdk.bench.ts', what: "a kiosk app's SDK, min+gzip" },
  {
    name: 'queue',
    script: 'queue.bench.ts',
    what: "200 registrations queued by the SDK's offline queue during an outage, drained under the rate limit",
  },
  {
    name: 'kiosk-app',
    script: 'kiosk-app.bench.ts',
    what: 'the kiosk app on a tablet over slow 4G: first-load bytes, time to interactive on a first and a later start',
  },
  { name: 'console', script: 'console.bench.ts', what: "the staff console on a laptop: first-load JS, an event's live view interactive" },
  {
    name: 'booth',
    script: 'booth.bench.ts',
    what: 'the booth connector: ten camera photos through a 20 Mbit/s uplink, its time against the raw transfer',
  },
  {
    name: 'phone',
    script: 'phone.bench.ts',
    what: 'the guest pages of 10 camera photos on a phone over slow and fast 4G: first photo shown, bytes, og:image',
  },
]

/**
 * Quick mode starts these first, the longest alone (phone 58 s, delivery, copies and zip about 45 s,
 * gallery 40 s on a busy 2-core machine), so that no long one is left running alone at the end; the
 * table keeps the order above.
 */
const QUICK_FIRST = ['phone', 'delivery', 'copies', 'zip', 'gallery']

const root = fileURLToPath(new URL('../', import.meta.url))
const readmePath = fileURLToPath(new URL('./README.md', import.meta.url))
const START = '<!-- bench:table:start -->'
const END = '<!-- bench:table:end -->'

type Outcome = { name: string; seconds: number; exit: string | undefined; rows: Row[] }
type TableRow = { bench: string } & Omit<Row, 'result'> & { result: Row['result'] | 'BROKEN' }

const quick = process.argv.includes('--quick')

function parseArguments(): typeof BENCHES {
  const names = process.argv.slice(2).filter((name) => name !== '--quick')
  if (names.includes('--list') || names.includes('-l')) {
    for (const bench of BENCHES) console.log(`${bench.name.padEnd(10)} bench/${bench.script}: ${bench.what}`)
    process.exit(0)
  }
  const unknown = names.filter((name) => !BENCHES.some((bench) => bench.name === name))
  if (unknown.length > 0) {
    console.error(`unknown benchmark: ${unknown.join(', ')}; known: ${BENCHES.map((bench) => bench.name).join(', ')}`)
    process.exit(2)
  }
  return names.length === 0 ? BENCHES : BENCHES.filter((bench) => names.includes(bench.name))
}

let interrupted = false

/**
 * One benchmark in its own process; its rows come back through the rows file. `env`: what it gets
 * beside the runner's environment. `buffered`: its output is held and printed whole once it ends
 * (benchmarks running side by side), else it goes straight through.
 */
async function runOne(
  bench: (typeof BENCHES)[number],
  folder: string,
  { env = {}, buffered = false }: { env?: NodeJS.ProcessEnv; buffered?: boolean } = {},
): Promise<Outcome> {
  const rowsFile = join(folder, `${bench.name}.jsonl`)
  writeFileSync(rowsFile, '')
  const started = performance.now()
  const header = `\n${'='.repeat(100)}\n== ${bench.name}: ${bench.what}\n== node --import tsx bench/${bench.script}\n${'='.repeat(100)}\n`
  if (buffered) console.log(`started ${bench.name}`)
  else console.log(header)
  let output = ''
  const exit = await new Promise<string | undefined>((resolve) => {
    // The script beside this file: a copy of bench/ elsewhere runs its own.
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(bench.script, import.meta.url))], {
      cwd: root,
      env: { ...process.env, ...env, [ROWS_FILE_VARIABLE]: rowsFile },
      stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    })
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', (error) => resolve(`did not start: ${error.message}`))
    child.once('close', (code, signal) => resolve(signal ? `killed by ${signal}` : code === 0 ? undefined : `exited with code ${code}`))
  })
  const seconds = (performance.now() - started) / 1000
  if (buffered) console.log(`${header}\n${output.trimEnd()}\n\n== ${bench.name}: ${exit ?? 'done'} in ${duration(seconds)}`)
  const rows: Row[] = []
  for (const line of readFileSync(rowsFile, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      rows.push(JSON.parse(line) as Row)
    } catch {
      console.error(`${bench.name}: a row that is not JSON: ${line.slice(0, 200)}`)
    }
  }
  return { name: bench.name, seconds, exit, rows }
}

/**
 * Quick mode's database: one embedded PostgreSQL for the whole run (a cluster's start and stop cost
 * each benchmark seconds), a database of its own for each benchmark. Undefined when `DATABASE_URL`
 * is given: the benchmarks then use it, one at a time.
 */
async function sharedCluster(
  folder: string,
): Promise<{ databaseFor: (name: string) => Promise<string>; stop: () => Promise<void> } | undefined> {
  if (process.env.DATABASE_URL) return undefined
  const cluster = await startEmbeddedPostgres({ dataDir: join(folder, 'cluster'), port: await freePort(), database: 'photobooth_bench' })
  const admin = new pg.Pool({ connectionString: cluster.url, max: 1 })
  return {
    databaseFor: async (name) => {
      const database = `bench_${name.replace(/\W/g, '_')}`
      await admin.query(`create database ${database}`)
      const url = new URL(cluster.url)
      url.pathname = `/${database}`
      return url.href
    },
    stop: async () => {
      await admin.end()
      await cluster.stop()
    },
  }
}

/** Runs the benchmarks, `jobs` at a time, in order; each outcome in its benchmark's place. */
async function runAll(selected: typeof BENCHES, folder: string): Promise<Outcome[]> {
  if (!quick) {
    const outcomes: Outcome[] = []
    for (const bench of selected) {
      if (interrupted) break
      outcomes.push(await runOne(bench, folder))
    }
    return outcomes
  }
  const cluster = await sharedCluster(folder)
  const jobs = cluster ? Math.round(envNumber('BENCH_JOBS', 2, 1)) : 1
  console.log(
    `quick mode: ${selected.length} benchmarks, ${jobs} at a time, ` +
      (cluster ? 'each on a database of its own in one embedded PostgreSQL' : 'on DATABASE_URL'),
  )
  const outcomes: (Outcome | undefined)[] = selected.map(() => undefined)
  const rank = (name: string) => (QUICK_FIRST.includes(name) ? QUICK_FIRST.indexOf(name) : QUICK_FIRST.length)
  const queue = selected
    .map((bench, index) => ({ bench, index }))
    .sort((a, b) => rank(a.bench.name) - rank(b.bench.name) || a.index - b.index)
  let next = 0
  try {
    await Promise.all(
      Array.from({ length: Math.min(jobs, selected.length) }, async () => {
        while (next < queue.length && !interrupted) {
          const { bench, index } = queue[next++]!
          const env: NodeJS.ProcessEnv = {
            [QUICK_VARIABLE]: '1',
            ...(cluster ? { DATABASE_URL: await cluster.databaseFor(bench.name) } : {}),
          }
          outcomes[index] = await runOne(bench, folder, { env, buffered: jobs > 1 })
        }
      }),
    )
  } finally {
    await cluster?.stop()
  }
  return outcomes.filter((outcome) => outcome !== undefined)
}

const duration = (seconds: number) =>
  seconds < 60 ? `${seconds.toFixed(0)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`

function machine(): string {
  const model = cpus()[0]?.model.replace(/\s+/g, ' ').trim()
  return `${availableParallelism()} CPUs${model ? ` (${model})` : ''}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`
}

function writeReadme(block: string): void {
  const readme = readFileSync(readmePath, 'utf8')
  const start = readme.indexOf(START)
  const end = readme.indexOf(END)
  if (start === -1 || end < start) {
    console.error(`\n${relative(root, readmePath)} has no ${START} … ${END} markers: the table was not written there`)
    return
  }
  writeFileSync(readmePath, `${readme.slice(0, start + START.length)}\n${block}\n${readme.slice(end)}`)
  console.log(`\nwritten into ${relative(root, readmePath)}`)
}

async function main(): Promise<number> {
  const selected = parseArguments()
  const full = selected.length === BENCHES.length
  // Ctrl-C reaches the benchmark in hand too (same process group): it cleans up, then nothing else runs.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      interrupted = true
    })
  }
  const startedAt = new Date()
  const loadBefore = loadavg()[0]!
  const started = performance.now()
  const folder = mkdtempSync(join(tmpdir(), 'photobooth-bench-rows-'))
  let outcomes: Outcome[] = []
  try {
    outcomes = await runAll(selected, folder)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
  const total = (performance.now() - started) / 1000

  const rows: TableRow[] = outcomes.flatMap((outcome) => [
    ...outcome.rows.map((row) => ({ bench: outcome.name, ...row })),
    ...(outcome.exit
      ? [
          {
            bench: outcome.name,
            row: `${outcome.name} broke`,
            value: '—',
            figures: `bench/${outcome.name}.bench.ts ${outcome.exit}: see its output`,
            target: '—',
            result: 'BROKEN' as const,
          },
        ]
      : []),
  ])
  const table = formatTable(rows, ['bench', 'row', 'value', 'figures', 'target', 'result'])
  const broken = outcomes.filter((outcome) => outcome.exit)
  const counts = (['PASS', 'FAIL', 'info'] as const)
    .map((result) => `${rows.filter((row) => row.result === result).length} ${result}`)
    .join(', ')
  const timings = outcomes.map((outcome) => `${outcome.name} ${duration(outcome.seconds)}`).join(', ')
  const summary =
    `${full ? `Full run of \`pnpm bench${quick ? ' --quick' : ''}\`` : `\`pnpm bench ${quick ? '--quick ' : ''}${selected.map((bench) => bench.name).join(' ')}\``} on ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
    `${machine()}; load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end. It took ${duration(total)} (${timings}). ${counts}` +
    (broken.length > 0 ? `; broken: ${broken.map((outcome) => outcome.name).join(', ')}` : '') +
    (interrupted ? '; interrupted' : '') +
    '.'

  console.log(`\n${'='.repeat(100)}\n\n${summary}\n\n${table}`)
  // Quick mode's figures are of one short round: never the README's.
  if (full && !quick && !interrupted && process.env.BENCH_README !== 'off') writeReadme(`${summary}\n\n${table}`)
  if (interrupted) return 130
  return broken.length > 0 ? 1 : 0
}

process.exitCode = await main()
