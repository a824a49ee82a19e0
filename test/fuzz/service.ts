import { fork, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { serviceEnv } from '../support/processes.js'
import type { FromService, Refs, ToService } from './protocol.js'
import { POSTMARK_WEBHOOK, TWILIO_SID, TWILIO_TOKEN } from '../support/webhooks.js'

/** The client-IP header the service trusts; the fuzzer sends odd and invalid values in it. */
export const CLIENT_IP_HEADER = 'cf-connecting-ip'

export type FuzzService = {
  readonly url: string
  readonly refs: Refs
  /** The process in use now (a new one after a restart). */
  readonly child: ChildProcess
  /** How many times a dead process was replaced. */
  readonly restarts: number
  /** Whether the process has not exited. */
  alive(): boolean
  /** The process's RSS, asked over IPC: undefined if it does not answer in time (dead or stuck). */
  rss(timeoutMs?: number): Promise<number | undefined>
  /** Replaces the process if it died (a previous case killed it), so that each case starts on a live one. */
  ensureRunning(): Promise<void>
  /** The last lines the process wrote to stderr (its dying words). */
  stderrTail(): string
  /** Kills a process that stopped answering; the next `ensureRunning` replaces it. */
  kill(): Promise<void>
  close(): Promise<void>
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
const script = fileURLToPath(new URL('./fuzz-service.ts', import.meta.url))

/**
 * Forks `fuzz-service.ts` as `test/messages/delivery.test.ts` forks a service: tsx, development
 * mode, an ephemeral port, the run's PostgreSQL, a temporary data folder, no delivery. Rate limits
 * count in a one-second window keyed on `cf-connecting-ip`, so that 429s stay rare but reachable.
 */
export async function startFuzzService(databaseUrl: string): Promise<FuzzService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-fuzz-'))
  let stderr = ''
  let restarts = 0

  const env = serviceEnv({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DELIVERY: 'off',
    RATE_LIMIT_WINDOW_MS: '1000',
    CLIENT_IP_HEADER,
  })
  // Whatever the developer's shell points at, the fuzzed instance uses the local bucket and memory counts.
  for (const name of [
    'S3_BUCKET',
    'REDIS_URL',
    'PUBLIC_URL',
    'CDN_URL',
    'GALLERY_URL',
    'CONTACT_FORM_URL',
    'POSTMARK_SERVER_TOKEN',
    'TWILIO_ACCOUNT_SID',
  ]) {
    delete env[name]
  }
  // The providers' webhooks on, so that the fuzzer reaches past their credentials; nothing is sent (DELIVERY off).
  Object.assign(env, {
    POSTMARK_WEBHOOK_USER: POSTMARK_WEBHOOK.user,
    POSTMARK_WEBHOOK_PASSWORD: POSTMARK_WEBHOOK.password,
    TWILIO_ACCOUNT_SID: TWILIO_SID,
    TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TWILIO_FROM: '+15005550006',
    TWILIO_API_URL: 'http://127.0.0.1:9',
  })

  async function spawn(): Promise<{ child: ChildProcess; url: string; refs: Refs }> {
    const child = fork(script, [], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env,
    })
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000)
    })
    return new Promise((resolve, reject) => {
      const onMessage = (message: FromService) => {
        if (message.type !== 'ready') return
        child.off('exit', onExit)
        child.off('message', onMessage)
        resolve({ child, url: message.url, refs: message.refs })
      }
      const onExit = (code: number | null, signal: string | null) => {
        reject(new Error(`the fuzzed service exited during start-up (${signal ?? code}):\n${stderr}`))
      }
      child.on('message', onMessage)
      child.once('exit', onExit)
    })
  }

  let current = await spawn()
  const isAlive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null
  const kill = async (child: ChildProcess) => {
    if (!isAlive(child)) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }

  return {
    get url() {
      return current.url
    },
    get refs() {
      return current.refs
    },
    get child() {
      return current.child
    },
    get restarts() {
      return restarts
    },
    alive: () => isAlive(current.child),
    rss(timeoutMs = 2_000) {
      const { child } = current
      if (!isAlive(child) || !child.connected) return Promise.resolve(undefined)
      return new Promise((resolve) => {
        const done = (value: number | undefined) => {
          clearTimeout(timer)
          child.off('message', onMessage)
          child.off('exit', onExit)
          resolve(value)
        }
        const onMessage = (message: FromService) => {
          if (message.type === 'rss') done(message.rss)
        }
        const onExit = () => done(undefined)
        const timer = setTimeout(() => done(undefined), timeoutMs)
        child.on('message', onMessage)
        child.once('exit', onExit)
        child.send({ type: 'rss' } satisfies ToService, (error) => {
          if (error) done(undefined)
        })
      })
    },
    async ensureRunning() {
      if (isAlive(current.child)) return
      restarts++
      current = await spawn()
    },
    stderrTail: () => stderr,
    kill: () => kill(current.child),
    async close() {
      await kill(current.child)
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
