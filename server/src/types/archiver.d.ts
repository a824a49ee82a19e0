// archiver 8 ships no types (and @types/archiver describes the older default-export API).
declare module 'archiver' {
  import { Transform, type Readable } from 'node:stream'

  export type EntryData = { name: string; date?: Date; store?: boolean }

  export class ZipArchive extends Transform {
    constructor(options?: { store?: boolean; forceZip64?: boolean; zlib?: unknown; highWaterMark?: number })
    append(source: Readable | Buffer | string, data: EntryData): this
    finalize(): Promise<void>
    abort(): this
    pointer(): number
    on(event: 'entry', listener: (entry: EntryData) => void): this
    on(event: 'warning' | 'error', listener: (error: Error) => void): this
    on(event: string | symbol, listener: (...args: unknown[]) => void): this
  }
}
