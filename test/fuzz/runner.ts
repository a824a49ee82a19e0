/**
 * One fuzz case end to end (resolve, send, check, ask the process whether it is alive), the run's
 * figures, and the two ways of running: `assertFuzz` (fast-check's assert: stop at the first
 * failure, shrink it) and `surveyFuzz` (every failure class among the run's cases, each shrunk).
 */
import fc from 'fast-check'
import { formFields } from '@photobooth/server/modules/webhooks/index'
import twilio from 'twilio'

import { TWILIO_TOKEN } from '../support/webhooks.js'

import { checkExchange, type Problem } from './checks.js'
import { routeOf } from './openapi.js'
import { fuzzCase, TWILIO_SIGNED, type FuzzCase } from './requests.js'
import type { FuzzService } from './service.js'
import { resolveBytes, resolveJson, resolveText, type Context } from './text.js'
import { encodeRaw, send, type Exchange, type WireRequest } from './wire.js'

/** How long one exchange may take before it counts as unanswered. */
const EXCHANGE_TIMEOUT_MS = 10_000

export function toWire(fuzz: FuzzCase, context: Context): WireRequest {
  let body: Buffer | undefined
  if (fuzz.body !== null) {
    if ('json' in fuzz.body) {
      const text = JSON.stringify(resolveJson(fuzz.body.json, context)) ?? 'null'
      body = Buffer.from(text.slice(0, Math.max(0, text.length - fuzz.body.cut)), 'utf8')
    } else {
      body = resolveBytes(fuzz.body.text, context)
    }
  }
  const target = resolveText(fuzz.target, context)
  // Signed as Twilio signs: the service's own URL of the target, and the body's form fields.
  const sign = () =>
    twilio.getExpectedTwilioSignature(TWILIO_TOKEN, `${context.refs.origin}${target}`, formFields(body?.toString('utf8') ?? ''))
  return {
    method: resolveText(fuzz.method, context),
    target,
    version: fuzz.version,
    headers: fuzz.headers.map(([name, value]) => [
      resolveText(name, context),
      value === TWILIO_SIGNED ? sign() : resolveText(value, context),
    ]),
    body,
    framing: fuzz.framing,
    headEncoding: fuzz.headEncoding,
    probe: fuzz.probe,
  }
}

/** The request's bytes, shortened for a report: long runs of one byte are counted, not shown. */
export function showRaw(wire: WireRequest, max = 1_500): string {
  const text = encodeRaw(wire)
    .toString('latin1')
    .replace(/(.)\1{39,}/gs, (run, unit: string) => `${unit}{×${run.length}}`)
  const shown = JSON.stringify(text)
  return shown.length > max ? `${shown.slice(0, max)}… (${text.length} characters)` : shown
}

export class Figures {
  cases = 0
  answers = 0
  readonly statuses = new Map<string, number>()
  readonly via = new Map<string, number>()
  /** Not failures of the issue's properties, but worth a look: connections closed unanswered, timeouts, cut answers. */
  readonly observations = new Map<string, { count: number; example: string }>()
  rssBefore?: number
  rssAfter?: number
  startedAt = Date.now()
  endedAt?: number

  record(wire: WireRequest, exchange: Exchange) {
    this.cases++
    this.via.set(exchange.via, (this.via.get(exchange.via) ?? 0) + 1)
    for (const response of exchange.responses) {
      this.answers++
      const status = String(response.status)
      this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
    }
    const note = (what: string) => {
      const seen = this.observations.get(what)
      if (seen) seen.count++
      else this.observations.set(what, { count: 1, example: showRaw(wire, 300) })
    }
    if (exchange.responses.length === 0) {
      this.statuses.set('none', (this.statuses.get('none') ?? 0) + 1)
      if (wire.framing !== 'long-length')
        note(
          `no answer: connection ${exchange.ending}${exchange.notAllSent ? ' while sending' : ''} (${routeOf(wire.method, wire.target).route})`,
        )
    }
    if (exchange.truncated !== undefined) note(`answer cut short: ${exchange.truncated.slice(0, 60)}`)
  }

  summary(restarts: number): string {
    const mib = (bytes?: number) => (bytes === undefined ? '?' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`)
    const statuses = [...this.statuses.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => `${status}: ${count}`)
    const lines = [
      `cases: ${this.cases} (${[...this.via.entries()].map(([via, count]) => `${via} ${count}`).join(', ')}), answers: ${this.answers}, in ${(((this.endedAt ?? Date.now()) - this.startedAt) / 1000).toFixed(1)} s`,
      `statuses: ${statuses.join(', ')}`,
      `service RSS: ${mib(this.rssBefore)} before, ${mib(this.rssAfter)} after; restarts after a death: ${restarts}`,
    ]
    if (this.observations.size > 0) {
      lines.push('observations (not failures):')
      for (const [what, { count, example }] of this.observations) lines.push(`  ${count}× ${what}, e.g. ${example}`)
    }
    return lines.join('\n')
  }
}

export type Outcome = { wire: WireRequest; exchange: Exchange; problems: Problem[] }

/** Sends one case to a live process, checks every answer, and checks the process is alive and answering. */
export async function runCase(service: FuzzService, figures: Figures, fuzz: FuzzCase): Promise<Outcome> {
  await service.ensureRunning()
  const wire = toWire(fuzz, { refs: service.refs, host: new URL(service.url).host })
  const exchange = await send(service.url, wire, fuzz.via, EXCHANGE_TIMEOUT_MS)
  figures.record(wire, exchange)
  const problems = checkExchange(wire, exchange)
  const route = routeOf(wire.method, wire.target).route
  if ((await service.rss(3_000)) === undefined) {
    if (service.alive()) {
      problems.push({ kind: 'process unresponsive', key: `process unresponsive · ${route}`, detail: 'no answer over IPC within 3 s' })
      await service.kill()
    } else {
      const { exitCode, signalCode } = service.child
      problems.push({
        kind: 'process died',
        key: `process died · ${route}`,
        detail: `exit ${signalCode ?? exitCode}; stderr:\n${service.stderrTail().slice(-1_500)}`,
      })
    }
  }
  return { wire, exchange, problems }
}

const describeProblems = (problems: Problem[]) => problems.map((problem) => `${problem.key}\n    ${problem.detail}`).join('\n')

export type RunOptions = { seed: number; numRuns: number; path?: string }

/**
 * fast-check's assert: the first failing case, shrunk. The error carries the shrunk case, its
 * bytes, every failure of it, and how to replay it.
 */
export async function assertFuzz(service: FuzzService, figures: Figures, options: RunOptions): Promise<void> {
  let last: Outcome | undefined
  const property = fc.asyncProperty(fuzzCase, async (fuzz) => {
    const outcome = await runCase(service, figures, fuzz)
    if (outcome.problems.length > 0) {
      last = outcome
      throw new Error(describeProblems(outcome.problems))
    }
  })
  const details = await fc.check(property, { seed: options.seed, numRuns: options.numRuns, path: options.path })
  if (!details.failed) return
  // Replayed once more so that the bytes and the failures shown are the shrunk case's own; a
  // failure that does not come again (it depended on timing) is shown as it was last seen.
  const shrunk = details.counterexample?.[0]
  const replayed = shrunk ? await runCase(service, figures, shrunk) : undefined
  const again = replayed !== undefined && replayed.problems.length > 0
  if (again) last = replayed
  throw new Error(
    [
      fc.defaultReportMessage(details),
      '',
      `Minimal request's bytes: ${last ? showRaw(last.wire) : '?'}`,
      `Its failures${again ? '' : ' (when last seen; not again when replayed)'}:\n${last ? describeProblems(last.problems) : '?'}`,
      '',
      `Replay the run:      FUZZ_SEED=${options.seed} pnpm fuzz`,
      `Replay this request: FUZZ_SEED=${options.seed} FUZZ_PATH=${details.counterexamplePath} pnpm fuzz`,
    ].join('\n'),
  )
}

export type FailureClass = { key: string; firstIndex: number; count: number; shrunk?: FuzzCase; path?: string; outcome?: Outcome }

/**
 * Every failure class among `numRuns` cases of a seed, each shrunk to a minimal request of its
 * own class: one pass that records and never fails, then, per class, fast-check replaying the
 * class's first case (`path`) with a property that fails only for that class.
 */
export async function surveyFuzz(
  service: FuzzService,
  figures: Figures,
  options: RunOptions,
  log: (line: string) => void,
): Promise<FailureClass[]> {
  const classes = new Map<string, FailureClass>()
  let index = 0
  await fc.check(
    fc.asyncProperty(fuzzCase, async (fuzz) => {
      const at = index++
      const { problems } = await runCase(service, figures, fuzz)
      for (const key of new Set(problems.map((problem) => problem.key))) {
        const known = classes.get(key)
        if (known) known.count++
        else {
          classes.set(key, { key, firstIndex: at, count: 1 })
          log(`new failure class at case ${at}: ${key}`)
        }
      }
      if (at > 0 && at % 1000 === 0) log(`${at} cases, ${classes.size} failure classes`)
    }),
    { seed: options.seed, numRuns: options.numRuns },
  )
  for (const found of classes.values()) {
    let last: Outcome | undefined
    const details = await fc.check(
      fc.asyncProperty(fuzzCase, async (fuzz) => {
        const outcome = await runCase(service, figures, fuzz)
        if (outcome.problems.some((problem) => problem.key === found.key)) {
          last = outcome
          return false
        }
        return true
      }),
      { seed: options.seed, numRuns: options.numRuns, path: String(found.firstIndex) },
    )
    if (details.failed && details.counterexample) {
      found.shrunk = details.counterexample[0]
      found.path = details.counterexamplePath ?? undefined
      found.outcome = (await runCase(service, figures, found.shrunk)) ?? last
    }
    log(`shrunk: ${found.key}`)
  }
  return [...classes.values()]
}

export function describeClasses(classes: FailureClass[], seed: number): string {
  return classes
    .map((found, n) =>
      [
        `${n + 1}. ${found.key} (${found.count} of the run's cases)`,
        found.shrunk ? `   minimal case: ${fc.stringify(found.shrunk)}` : '   (did not fail again when replayed)',
        found.outcome ? `   bytes: ${showRaw(found.outcome.wire, 600)}` : '',
        found.outcome
          ? `   failures:\n${found.outcome.problems.map((problem) => `     ${problem.key}: ${problem.detail.replace(/\n/g, '\n       ')}`).join('\n')}`
          : '',
        found.path ? `   replay: FUZZ_SEED=${seed} FUZZ_PATH=${found.path} pnpm fuzz` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    )
    .join('\n\n')
}
