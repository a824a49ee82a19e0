/**
 * HTTP load, side by side: autocannon in a worker thread against two or more targets, warmed up,
 * then measured in rounds whose order reverses every round (ABBA, ABCCBA), and ratio rows of the
 * means. Shared by the gallery and full-stack benchmarks.
 */
import { readFileSync } from 'node:fs'

import autocannon, { type Result } from 'autocannon'

import { envNumber, mean, QUICK, sleep } from './support.js'
import { verdict, type Row } from './rows.js'

// Quick mode: one round of 1 s per target, no warm-up.
export const DURATION = envNumber('BENCH_DURATION', 10, 1, 1) // seconds per measured run
export const WARMUP = envNumber('BENCH_WARMUP', 3, 0, 0) // seconds per target before measuring
export const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 2, 1, 1)) // measured runs per target, alternating order
export const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10, 1))
// The load generator runs in worker threads so that it does not share the servers' event loop.
export const WORKERS = Math.round(envNumber('BENCH_WORKERS', 1, 0))
const SETTLE_MS = QUICK ? 200 : 1_000 // pause after each load run

export const loadSettingsLine = () =>
  `${CONNECTIONS} connections, pipelining 1, warm-up ${WARMUP}s, ${ROUNDS} × ${DURATION}s per target, ` +
  `load generator in ${WORKERS > 0 ? `${WORKERS} worker thread(s)` : 'the main thread'}`

/** A URL to load; every answer must be a 2xx, or the `status` given (a 304). */
export type Target = { name: string; url: string; headers?: Record<string, string>; status?: 304 }

export type Measure = {
  requests: number
  p50: number
  p99: number
  bytesPerSecond: number
  /** CPU time of the process's main thread (the servers' event loop) per answer, in ms; NaN where /proc is not. */
  cpuPerRequest: number
}

const CLOCK_TICKS = 100 // USER_HZ: 100 on every Linux architecture Node runs on

/**
 * CPU time (user + system) of the main thread so far, in ms, from Linux's /proc: req/s move with
 * whatever else the machine runs, the CPU a request costs the event loop much less. Excludes the
 * load generator's worker thread, the libuv pool (where compression runs) and PostgreSQL.
 */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}

async function fire(target: Target, seconds: number): Promise<{ result: Result; cpuPerRequest: number }> {
  const cpuBefore = mainThreadCpuMs()
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(WORKERS > 0 ? { workers: WORKERS } : {}),
  })
  // Requests cut off at the end are still being answered: let them finish before the next run.
  await sleep(SETTLE_MS)
  const cpuPerRequest = (mainThreadCpuMs() - cpuBefore) / result.requests.total
  const unexpected = target.status === 304 ? result.requests.total - result['3xx'] : result.non2xx
  const problems = [
    result.errors ? `${result.errors} errors` : '',
    result.timeouts ? `${result.timeouts} timeouts` : '',
    unexpected > 0 ? `${unexpected} answers other than ${target.status ?? '2xx'}` : '',
  ].filter(Boolean)
  if (problems.length > 0) throw new Error(`load on ${target.url} (${target.name}) failed: ${problems.join(', ')}`)
  return { result, cpuPerRequest }
}

/** Warm-up, then ROUNDS measured runs of each target, the order reversed every round (ABBA, ABCCBA). */
export async function measureTargets(targets: Target[]): Promise<Map<string, Measure>> {
  const measures = new Map<string, Measure[]>(targets.map((target) => [target.name, []]))
  const width = Math.max(...targets.map((target) => target.name.length))
  if (WARMUP > 0) {
    for (const target of targets) {
      process.stdout.write(`  warm-up ${target.name.padEnd(width)} ${WARMUP}s\n`)
      await fire(target, WARMUP)
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    // Neither side always goes first.
    const order = round % 2 === 0 ? targets : [...targets].reverse()
    for (const target of order) {
      const { result, cpuPerRequest } = await fire(target, DURATION)
      const measure = {
        requests: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        bytesPerSecond: result.throughput.average,
        cpuPerRequest,
      }
      measures.get(target.name)!.push(measure)
      console.log(
        `  round ${round + 1} ${target.name.padEnd(width)} ${measure.requests.toFixed(1).padStart(9)} req/s  ` +
          `p50 ${measure.p50} ms  p99 ${measure.p99} ms  ${(measure.bytesPerSecond / 1e6).toFixed(1)} MB/s  ` +
          `main thread ${measure.cpuPerRequest.toFixed(3)} ms CPU/request`,
      )
    }
  }
  const average = (list: Measure[]): Measure => ({
    requests: mean(list.map((m) => m.requests)),
    p50: mean(list.map((m) => m.p50)),
    p99: mean(list.map((m) => m.p99)),
    bytesPerSecond: mean(list.map((m) => m.bytesPerSecond)),
    cpuPerRequest: mean(list.map((m) => m.cpuPerRequest)),
  })
  return new Map([...measures].map(([name, list]) => [name, average(list)]))
}

const reqs = (m: Measure) =>
  `${m.requests.toFixed(1)} req/s, p50/p99 ${m.p50.toFixed(1)} / ${m.p99.toFixed(1)} ms` +
  (Number.isNaN(m.cpuPerRequest) ? '' : `, ${m.cpuPerRequest.toFixed(3)} ms CPU/req`)

/** A row judging the ratio of two targets' mean req/s (no target: an `info` row). */
export function ratioRow(
  row: string,
  a: { label: string; measure: Measure },
  b: { label: string; measure: Measure },
  target?: number,
): Row {
  const ratio = a.measure.requests / b.measure.requests
  return {
    row,
    value: `${ratio.toFixed(3)}×`,
    figures: `${a.label} ${reqs(a.measure)}; ${b.label} ${reqs(b.measure)}`,
    target: target === undefined ? '(none)' : `≥ ${target}×`,
    result: target === undefined ? 'info' : verdict(ratio >= target),
  }
}
