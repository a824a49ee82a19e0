/**
 * What the zip benchmark's two processes say to each other over the fork's IPC channel: the parent
 * (zip.bench.ts: seeding, the client, the figures) and the server process (server-process.ts).
 */

export const MiB = 1024 * 1024

/**
 * How the read baseline reads: `stream` is plain `fs.createReadStream` (the target's baseline);
 * `pool` is the zip's own reader (the local bucket reading into recycled buffers), shown as context.
 */
export type Reader = 'stream' | 'pool'

/** `embedded`: the PostgreSQL cluster lives in `<dataDir>/postgres` and goes with the folder. */
export type StartArgs = { databaseUrl: string; embedded: boolean; dataDir: string; bucketRoot: string; secret: string }

/** What the server process reports about itself over one armed interval. */
export type RssWindow = { before: number; peakSampled: number; peakHwm: number | undefined; samples: number }
export type RssReport = RssWindow & {
  peak: number
  growth: number
  /** CPU time (user + system) the server process used over the window. */
  cpuMs: number
  /** CPU time the arming itself took (the full GC), before the window. */
  armCpuMs: number
}
export type BaselineReport = { bytes: number; ms: number; rss: RssReport }

export type Commands = {
  start: { args: StartArgs; result: { port: number } }
  createEvent: { args: { slug: string }; result: { eventId: string; setId: string } }
  baseline: { args: { paths: string[]; reader: Reader }; result: BaselineReport }
  /** Starts the server of the send baseline (see serveBackToBack). */
  serveFiles: { args: { paths: string[]; bytes: number }; result: { port: number } }
  arm: { args: Record<string, never>; result: { before: number } }
  /** The RSS after a full GC, with nothing in flight. */
  idleRss: { args: Record<string, never>; result: number }
  disarm: { args: Record<string, never>; result: RssReport }
  stop: { args: Record<string, never>; result: null }
}
export type Command = keyof Commands
export type CommandMessage = { id: number; command: Command; args: unknown }
export type ReplyMessage = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string }

/** The run cannot go on (a wrong answer, a wrong byte count): reported as ABORTED, exit code 1. */
export { Broken } from '../support.js'

export const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000
