/**
 * Property-based HTTP fuzzing of the service in a process of its own (see docs/api.md, "Fuzzing").
 *
 * `pnpm test` runs 300 cases with a fixed seed; `pnpm fuzz` runs 10,000 with a random seed, printed
 * at the start and on failure. Environment:
 *   FUZZ_RUNS    number of cases (300)
 *   FUZZ_SEED    a seed to replay, or `random` (fixed in `pnpm test`)
 *   FUZZ_PATH    with FUZZ_SEED: replay one counterexample (fast-check's path), shrinking it again
 *   FUZZ_SURVEY  `1`: do not stop at the first failure; list every failure class, each shrunk
 */
import { writeFile } from 'node:fs/promises'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { SECURITY_HEADERS } from './checks.js'
import { assertFuzz, describeClasses, Figures, surveyFuzz } from './runner.js'
import { startFuzzService, type FuzzService } from './service.js'
import { testDatabaseUrl } from '../support/database-url.js'

const FIXED_SEED = 20_260_601
const runs = Number(process.env.FUZZ_RUNS ?? 300)
const seedSetting = process.env.FUZZ_SEED
const seed =
  seedSetting === undefined || seedSetting === ''
    ? FIXED_SEED
    : seedSetting === 'random'
      ? (Math.random() * 2 ** 31) | 0
      : Number(seedSetting)
const path = process.env.FUZZ_PATH || undefined
const survey = process.env.FUZZ_SURVEY === '1'

if (!Number.isInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS must be a positive integer, not ${process.env.FUZZ_RUNS}`)
if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer or "random", not ${seedSetting}`)

// Progress goes straight to the terminal: a long run should show its seed before it ends.
const log = (line: string) => process.stderr.write(`[fuzz] ${line}\n`)

let service: FuzzService
beforeAll(async () => {
  service = await startFuzzService(testDatabaseUrl())
})
afterAll(() => service?.close())

describe('HTTP fuzzing', () => {
  it(
    `when ${runs} requests derived from openapi.json and mutated are sent, then no answer is a 5xx, every answer carries the security headers and is in the spec's shapes, and the process is alive afterwards`,
    async () => {
      log(
        `seed ${seed}, ${runs} cases${path ? `, replaying path ${path}` : ''}${survey ? ', survey of every failure class' : ''} (replay: FUZZ_SEED=${seed} pnpm fuzz)`,
      )
      const figures = new Figures()
      figures.rssBefore = await service.rss()
      let failure: Error | undefined
      try {
        if (survey) {
          const classes = await surveyFuzz(service, figures, { seed, numRuns: runs }, log)
          if (classes.length > 0) throw new Error(`${classes.length} failure classes (seed ${seed}):\n\n${describeClasses(classes, seed)}`)
        } else {
          await assertFuzz(service, figures, { seed, numRuns: runs, path })
        }
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error))
      }

      // Afterwards the process is alive (the one of the whole run unless a case killed it) and answers.
      await service.ensureRunning()
      const alive = service.child.exitCode === null && service.child.signalCode === null
      const document = await fetch(`${service.url}/openapi.json`)
      figures.rssAfter = await service.rss()
      figures.endedAt = Date.now()
      const summary = figures.summary(service.restarts)
      log(`seed ${seed}\n${summary}`)
      if (process.env.FUZZ_REPORT) {
        await writeFile(
          process.env.FUZZ_REPORT,
          JSON.stringify(
            {
              seed,
              runs,
              survey,
              summary,
              statuses: Object.fromEntries(figures.statuses),
              cases: figures.cases,
              answers: figures.answers,
              rssBefore: figures.rssBefore,
              rssAfter: figures.rssAfter,
              restarts: service.restarts,
              failure: failure?.message ?? null,
            },
            null,
            2,
          ),
        )
      }
      if (failure) {
        log(`FAILED with seed ${seed}: replay with FUZZ_SEED=${seed} pnpm fuzz`)
        throw failure
      }
      expect(alive).toBe(true)
      expect(service.restarts).toBe(0)
      expect(document.status).toBe(200)
      for (const name of SECURITY_HEADERS) expect(document.headers.get(name)).toBeTruthy()
    },
    // Generous: a run that finds a failure also shrinks it, one request per step.
    Math.max(120_000, runs * 500 + 300_000),
  )
})
