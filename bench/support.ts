/** What the benchmarks share: parameters from the environment, clean-up, and a database. */
import { spawn } from 'node:child_process'
import { get, type ServerResponse } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'

import { loadSettings, type Settings } from '@photobooth/server/config'
import { startEmbeddedPostgres } from '@photobooth/server/db/embedded-postgres'
import type pg from 'pg'

export function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`)
  return value
}

const cleanups: { name: string; run: () => Promise<void> }[] = []
let cleaningUp: Promise<void> | undefined

/** Registers a clean-up step; they run in reverse order of registration. */
export function onCleanup(name: string, run: () => Promise<void>): void {
  cleanups.push({ name, run })
}

/** Runs every clean-up step once, however many times it is called. */
export async function cleanUp(): Promise<void> {
  cleaningUp ??= (async () => {
    for (const { name, run } of cleanups.reverse()) {
      try {
        await run()
      } catch (error) {
        console.error(`clean-up of ${name} failed:`, error)
      }
    }
  })()
  return cleaningUp
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** `DATABASE_URL`, or an embedded PostgreSQL in `dataDir` on a free port, stopped at clean-up. */
export async function obtainDatabase(dataDir: string): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL
  const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'photobooth_bench' })
  onCleanup('embedded PostgreSQL', () => embedded.stop())
  return embedded.url
}

/** The service as a benchmark runs it: development settings, its data under `dataDir`, on a free port of 127.0.0.1. */
export function benchSettings(dataDir: string, databaseUrl: string): Settings {
  // No purge: the benchmarks' events may have started long ago.
  return {
    ...loadSettings({ MODE: 'development', DATA_DIR: dataDir, PURGE: 'off' }),
    databaseUrl,
    host: '127.0.0.1',
    port: 0,
    seedDemo: false,
  }
}

/** Runs `work` in one transaction on one connection of `pool`: the seed lands whole or not at all. */
export async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    await work(client)
    await client.query('commit')
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

/** A check of a benchmark failed: its figures would mean nothing (the runner shows it as BROKEN). */
export class Broken extends Error {}

/** Runs a benchmark: a failed check or a fault is said and exits 1; the clean-up always runs. */
export async function runBenchmark(main: () => Promise<void>): Promise<void> {
  try {
    await main()
  } catch (error) {
    process.exitCode = 1
    if (error instanceof Broken) console.error(`\nABORTED: ${error.message}`)
    else console.error('\nbenchmark failed:', error)
  } finally {
    await cleanUp()
  }
}

/** A baseline's JSON answer, as a hand-written server sends it: stringify, writeHead with the length, end. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** Runs a command in `cwd` to its end; answers its seconds. Its output is shown only if it fails. */
export function runToEnd(command: string, args: string[], cwd: string): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0
        ? resolve((performance.now() - started) / 1000)
        : reject(new Broken(`${command} ${args.join(' ')} exited with ${code}:\n${output}`)),
    )
  })
}

/** The status of `GET url`, or undefined while nothing listens. */
export function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: 2_000 }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode))
    })
    request.once('error', () => resolve(undefined))
    request.once('timeout', () => request.destroy())
  })
}
