/**
 * The server process of the zip benchmark: our real server, plus the baselines that must run in
 * the same process (same heap, same GC) to compare with it. Forked by zip.bench.ts, driven over
 * IPC (protocol.ts), so that its RSS and CPU are its own.
 */
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { open, readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

import { loadSettings, type Settings } from '@photobooth/server/config'
import { createLogger } from '@photobooth/server/logger'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { sendChunks } from '@photobooth/server/modules/gallery/bytes-routes'
import { ChunkPool, PooledFileStream } from '@photobooth/server/modules/storage/chunk-pool'
import { startServer, type RunningServer } from '@photobooth/server/server'

import { sleep } from '../support.js'
import { cpuMs, MiB, type BaselineReport, type Command, type CommandMessage, type Commands, type Reader, type ReplyMessage, type RssReport, type RssWindow, type StartArgs } from './protocol.js'

const SAMPLE_MS = 20 // RSS is sampled this often while armed (VmHWM is read as well)

/**
 * Peak resident set size over an armed window: sampled every SAMPLE_MS, and the kernel's own peak
 * (VmHWM, reset at arming), which catches a peak between samples. Also the CPU time used.
 */
class RssWatch {
  private window: RssWindow | undefined
  private timer: NodeJS.Timeout | undefined
  private cpu: NodeJS.CpuUsage | undefined
  private armCpuMs = 0

  arm(): number {
    const arming = process.cpuUsage()
    // Garbage from earlier runs must not count as headroom, so each window starts after a full GC.
    collectGarbage()
    const hwmReset = resetHighWaterMark()
    const before = process.memoryUsage.rss()
    this.window = { before, peakSampled: before, peakHwm: hwmReset ? 0 : undefined, samples: 1 }
    this.timer = setInterval(() => this.sample(), SAMPLE_MS)
    this.cpu = process.cpuUsage()
    this.armCpuMs = cpuMs(process.cpuUsage(arming))
    return before
  }

  disarm(): RssReport {
    const window = this.window
    if (!window) throw new Error('not armed')
    const cpu = process.cpuUsage(this.cpu)
    clearInterval(this.timer)
    this.sample()
    this.window = undefined
    if (window.peakHwm !== undefined) window.peakHwm = readHighWaterMark() ?? 0
    const peak = Math.max(window.peakSampled, window.peakHwm ?? 0)
    return { ...window, peak, growth: peak - window.before, cpuMs: cpuMs(cpu), armCpuMs: this.armCpuMs }
  }

  private sample(): void {
    if (!this.window) return
    this.window.samples++
    this.window.peakSampled = Math.max(this.window.peakSampled, process.memoryUsage.rss())
  }
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
}

/** Linux: writing 5 to clear_refs sets VmHWM to the current RSS. */
function resetHighWaterMark(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
    return readHighWaterMark() !== undefined
  } catch {
    return false
  }
}

function readHighWaterMark(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** Reads the files one after another with the zip route's read size (1 MiB chunks), every chunk consumed. */
async function readBackToBack(paths: string[], reader: Reader, watch: RssWatch): Promise<BaselineReport> {
  const pool = new ChunkPool(MiB)
  const openFile = async (path: string) =>
    reader === 'pool' ? new PooledFileStream(await open(path, 'r'), pool) : createReadStream(path, { highWaterMark: MiB })
  watch.arm()
  let bytes = 0
  const started = performance.now()
  for (const path of paths) {
    const stream = await openFile(path)
    await new Promise<void>((resolve, reject) => {
      stream
        .on('data', (chunk: Buffer) => {
          bytes += chunk.length
          pool.give(chunk)
        })
        .once('end', resolve)
        .once('error', reject)
    })
  }
  const ms = performance.now() - started
  return { bytes, ms, rss: watch.disarm() }
}

/**
 * The send baseline: the same files back to back in one HTTP response, without zipping, through
 * the zip route's own reader (recycled buffers) and its `sendChunks`. What it costs beyond a read
 * is the sending; what the zip costs beyond it is the zipping (archiver and its CRC).
 */
async function serveBackToBack(paths: string[], bytes: number): Promise<Server> {
  const server = createServer((_req, res) => {
    const abort = new AbortController()
    res.once('close', () => abort.abort())
    const pool = new ChunkPool(MiB)
    async function* files() {
      for (const path of paths) yield* new PooledFileStream(await open(path, 'r'), pool)
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes) })
    void sendChunks(files(), res, (chunk) => pool.give(chunk), abort.signal).catch(() => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

/** Stops the embedded cluster whose `postmaster.pid` is in `databaseDir`, if it still runs. */
async function stopCluster(databaseDir: string): Promise<void> {
  const pid = Number((await readFile(join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n', 1)[0])
  const alive = () => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive()) return
  process.kill(pid, 'SIGINT') // fast shutdown
  for (let waited = 0; waited < 15_000 && alive(); waited += 50) await sleep(50)
}

async function serve(): Promise<void> {
  // A parent that died mid-command has closed the channel: the reply is dropped (with a callback,
  // `send` reports that to it instead of crashing the process before it has tidied up).
  const send = (message: ReplyMessage) => process.send?.(message, () => {})
  const watch = new RssWatch()
  let args: StartArgs | undefined
  let running: RunningServer | undefined
  let filesServer: Server | undefined
  let eventId: string | undefined
  let toldToStop = false
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      filesServer?.closeAllConnections()
      filesServer?.close()
      await running?.stop()
    })())

  /**
   * The parent's channel closes when it exits: normally after its own clean-up, and then there is
   * nothing left to do. But it may have been killed half-way (tsx, between Ctrl-C and `pnpm`,
   * SIGKILLs a child that is slow to acknowledge a relayed signal): then this process tidies up.
   */
  const tidyAfterParent = async () => {
    if (!toldToStop && running && args && !args.embedded && eventId) {
      // Someone else's database: the seeded rows go (sets, session, photos, tracking cascade).
      await running.orm.em.getConnection().execute('delete from event where id = ?', [eventId]).catch(() => {})
    }
    await stop().catch(() => {})
    if (args && existsSync(args.dataDir)) {
      if (args.embedded) await stopCluster(join(args.dataDir, 'postgres'))
      await rm(args.dataDir, { recursive: true, force: true, maxRetries: 5 })
      console.error(`server process: the benchmark went away before its clean-up was done; removed ${args.dataDir}`)
    }
  }
  process.once('disconnect', () => void tidyAfterParent().finally(() => process.exit(0)))
  // Ctrl-C reaches the whole process group: the parent decides when this process stops, but the
  // download in flight is cut at once, so that the machine is not busy while everyone cleans up.
  process.on('SIGINT', () => running?.server.closeAllConnections())
  process.once('SIGTERM', () => void stop().finally(() => process.exit(0)))

  const handlers: { [C in Command]: (args: Commands[C]['args']) => Promise<Commands[C]['result']> } = {
    async start(startArgs) {
      args = startArgs
      const { databaseUrl, dataDir, bucketRoot, secret } = startArgs
      const loaded = loadSettings({ MODE: 'development', DATA_DIR: dataDir })
      const settings: Settings = {
        ...loaded,
        databaseUrl,
        host: '127.0.0.1',
        port: 0,
        seedDemo: false,
        delivery: { ...loaded.delivery, dispatch: false },
        storage: { kind: 'local', root: bucketRoot, secret },
      }
      running = await startServer({ settings, logger: createLogger({ silent: true }) })
      return { port: running.config.port }
    },
    async createEvent({ slug }) {
      if (!running) throw new Error('not started')
      const { event, sets } = await createEvent(running.orm.em.fork(), {
        slug,
        name: 'Zip Benchmark',
        startAt: new Date('2026-07-04T20:30:00Z'),
        sets: [{ slug: 'booth', name: 'Booth' }],
      })
      eventId = event.id
      const set = sets[0]
      if (!set) throw new Error('the event has no set')
      return { eventId: event.id, setId: set.id }
    },
    baseline: ({ paths, reader }) => readBackToBack(paths, reader, watch),
    async serveFiles({ paths, bytes }) {
      filesServer = await serveBackToBack(paths, bytes)
      return { port: (filesServer.address() as AddressInfo).port }
    },
    arm: async () => ({ before: watch.arm() }),
    async idleRss() {
      collectGarbage()
      return process.memoryUsage.rss()
    },
    disarm: async () => watch.disarm(),
    async stop() {
      toldToStop = true
      await stop()
      // The process stays until the parent lets go of it (see tidyAfterParent).
      return null
    },
  }

  process.on('message', (message: CommandMessage) => {
    const handler = handlers[message.command] as (args: unknown) => Promise<unknown>
    handler(message.args).then(
      (result) => send({ id: message.id, ok: true, result }),
      (error: unknown) => send({ id: message.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    )
  })
}

await serve()
