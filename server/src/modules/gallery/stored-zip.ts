import type { Readable } from 'node:stream'

import { ZipArchive } from 'archiver'

export type ZipEntry = { name: string; size: number; date: Date; open: () => Promise<Readable> }

/** Past this, ZIP64 records change the layout; the size is then not announced. */
const ZIP32_LIMIT = 0xffffffff

/** Info-ZIP's extended timestamp (`UT`): tag, length, flags (mtime only), the mtime in Unix seconds. */
const UT_EXTRA_BYTES = 9

/**
 * The entry's modification time as Unix seconds (UTC), in Info-ZIP's extended timestamp field. A zip's
 * own DOS time has no zone (archiver writes it in UTC), so a phone in New York would show a photo
 * taken at 9 pm as taken at 1 am; unzip, macOS, Windows' tools, 7-Zip and yauzl read this instead.
 */
function extendedTimestamp(date: Date): Buffer {
  const field = Buffer.alloc(UT_EXTRA_BYTES)
  field.writeUInt16LE(0x5455, 0)
  field.writeUInt16LE(5, 2)
  field.writeUInt8(1, 4)
  field.writeInt32LE(Math.floor(date.getTime() / 1000), 5)
  return field
}

/** What archiver's zip module (zip-stream, on compress-commons) is asked to write each entry's header with. */
type ZipModule = { _writeLocalFileHeader(entry: ZipEntryHeader): void }
type ZipEntryHeader = { getName(): string; setExtra(extra: Buffer): void; isZip64(): boolean }

/**
 * Gives every entry the extended timestamp of its date before its headers are written: archiver has
 * no option for extra fields, so its module's header writer is wrapped (a pinned version; the zip
 * tests read the field back). A ZIP64 entry's own extra field is left as it is.
 */
function timestampEntries(archive: ZipArchive, entries: readonly ZipEntry[]): void {
  const dates = new Map(entries.map((entry) => [entry.name, entry.date]))
  const module = (archive as unknown as { _module: { engine: ZipModule } })._module.engine
  const writeHeader = module._writeLocalFileHeader.bind(module)
  module._writeLocalFileHeader = (entry) => {
    const date = dates.get(entry.getName())
    if (date && !entry.isZip64()) entry.setExtra(extendedTimestamp(date))
    writeHeader(entry)
  }
}

/**
 * The exact byte size of the stored zip archiver writes for these entries: per entry a local
 * header (30 bytes, the name and the extended timestamp), the data and a data descriptor (16), then
 * a central header (46, the name and the timestamp) per entry and the end record (22). Undefined
 * when ZIP64 would be needed.
 */
export function storedZipSize(entries: readonly { name: string; size: number }[]): number | undefined {
  let total = 22
  for (const entry of entries) total += 92 + 2 * (Buffer.byteLength(entry.name) + UT_EXTRA_BYTES) + entry.size
  return total <= ZIP32_LIMIT && entries.every((entry) => entry.size < ZIP32_LIMIT) ? total : undefined
}

/**
 * A stored (uncompressed) zip, streamed while it is built. Entries are opened one at a time, when
 * the archive reaches them, so one storage stream is open at most; `signal` stops the archive and
 * closes the stream in hand.
 */
export function streamStoredZip(entries: readonly ZipEntry[], signal: AbortSignal, onError: (error: unknown) => void): Readable {
  // Room for one read in the archive's own buffer, so a large chunk passes without stalling.
  const archive = new ZipArchive({ store: true, highWaterMark: 1024 * 1024 })
  timestampEntries(archive, entries)
  let current: Readable | undefined
  let next = 0
  let stopped = false

  const stop = (error?: unknown) => {
    if (stopped) return
    stopped = true
    current?.destroy()
    archive.abort()
    // abort() ends the archive only once its queue is idle; with an entry in hand it would wait forever.
    if (error === undefined) return void archive.destroy()
    onError(error)
    archive.destroy(error instanceof Error ? error : new Error('the zip failed', { cause: error }))
  }
  const appendNext = async () => {
    if (stopped) return
    const entry = entries[next++]
    if (!entry) return void archive.finalize().catch(stop)
    try {
      current = await entry.open()
      if (stopped) return void current.destroy()
      // archiver pipes the source on, and pipe() does not pass a source's error along: unheard,
      // a failed read (a lost S3 connection, a bad checksum) would be thrown and end the process.
      current.once('error', stop)
      archive.append(current, { name: entry.name, date: entry.date })
    } catch (error) {
      stop(error)
    }
  }

  archive.on('entry', () => void appendNext())
  archive.on('error', (error) => stop(error))
  archive.on('warning', (error) => stop(error))
  // The client may have gone while the zip was being prepared: then nothing is opened at all.
  if (signal.aborted) stop()
  else signal.addEventListener('abort', () => stop(), { once: true })
  void appendNext()
  return archive
}
