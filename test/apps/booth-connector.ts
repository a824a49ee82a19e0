/**
 * The booth connector (apps/booth) as a process of its own against the test's service, as a booth
 * PC runs it: its JSON log lines read as they come, killed with SIGKILL or stopped with SIGTERM. And
 * the photos a camera makes (test/support/camera.ts), made once per machine and kept in a temporary
 * folder: four 5184×3456 JPEGs of 5 to 8 MB.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, open, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { makeCameraJpeg } from '../support/camera.js'

const CLI = fileURLToPath(new URL('../../apps/booth/src/cli.ts', import.meta.url))

export type LogLine = { time: string; level: string; event: string; message: string; session?: number } & Record<string, unknown>

export type RunningConnector = {
  child: ChildProcess
  lines: LogLine[]
  /** Resolves with the first line (from now on, or already read with `past`) that `match` accepts. */
  next(match: (line: LogLine) => boolean, options?: { past?: boolean; ms?: number }): Promise<LogLine>
  /** How many lines so far `match` accepts. */
  count(match: (line: LogLine) => boolean): number
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr(): string
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** `photobooth-booth <args> --json`, its key in PHOTOBOOTH_BOOTH_KEY. */
export function startConnector(args: string[], env: NodeJS.ProcessEnv): RunningConnector {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args, '--json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: LogLine[] = []
  const waiters = new Set<(line: LogLine) => void>()
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  createInterface({ input: child.stdout }).on('line', (text) => {
    let line: LogLine
    try {
      line = JSON.parse(text) as LogLine
    } catch {
      throw new Error(`a log line that is not JSON: ${text}`)
    }
    lines.push(line)
    for (const waiter of [...waiters]) waiter(line)
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  return {
    child,
    lines,
    next: (match, { past = false, ms = 60_000 } = {}) => {
      const seen = past ? lines.find(match) : undefined
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(
            new Error(
              `no such log line within ${ms} ms; the last lines:\n${lines
                .slice(-15)
                .map((line) => JSON.stringify(line))
                .join('\n')}\n${stderr}`,
            ),
          )
        }, ms)
        const waiter = (line: LogLine) => {
          if (!match(line)) return
          clearTimeout(timer)
          waiters.delete(waiter)
          resolve(line)
        }
        waiters.add(waiter)
        void exited.then(({ code, signal }) => {
          if (!waiters.has(waiter)) return
          clearTimeout(timer)
          waiters.delete(waiter)
          reject(
            new Error(
              `the connector exited (${signal ?? code}) first:\n${lines
                .slice(-15)
                .map((line) => JSON.stringify(line))
                .join('\n')}\n${stderr}`,
            ),
          )
        })
      })
    },
    count: (match) => lines.filter(match).length,
    exited,
    stderr: () => stderr,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

export const event = (name: string, session?: number) => (line: LogLine) =>
  line.event === name && (session === undefined || line.session === session)

/** Camera-size JPEGs, made once per machine (a few seconds each) and read from the cache after. */
export async function cameraPhotos(count: number): Promise<Buffer[]> {
  const folder = join(tmpdir(), 'photobooth-camera-cache')
  await mkdir(folder, { recursive: true })
  const photos: Buffer[] = []
  for (let seed = 1; seed <= count; seed++) {
    const path = join(folder, `camera-${seed}.jpg`)
    if (!existsSync(path)) await writeFile(path, await makeCameraJpeg({ seed, orientation: seed % 2 ? 1 : 6 }))
    photos.push(await readFile(path))
  }
  return photos
}

/** Writes `bytes` to `path` in chunks spread over `ms`, as a camera or a copy over the network does. */
export async function writeSlowly(path: string, bytes: Uint8Array, ms: number, chunks = 8): Promise<void> {
  const file = await open(path, 'w')
  try {
    const size = Math.ceil(bytes.length / chunks)
    for (let index = 0; index < chunks; index++) {
      await file.write(bytes.subarray(index * size, (index + 1) * size))
      if (index < chunks - 1) await new Promise((resolve) => setTimeout(resolve, ms / chunks))
    }
  } finally {
    await file.close()
  }
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
