import type { Readable } from 'node:stream'

import { ZipArchive } from 'archiver'

export type ZipEntry = { name: string; size: number; date: Date; open: () => Promise<Readable> }

/** Past this, ZIP64 records change the layout; the size is then not announced. */
const ZIP32_LIMIT = 0xffffffff

/**
 * The exact byte size of the stored zip archiver writes for these entries: per entry a local
 * header (30 bytes and the name), the data and a data descriptor (16), then a central header
 * (46 and the name) per entry and the end record (22). Undefined when ZIP64 would be needed.
 */
export function storedZipSize(entries: readonly { name: string; size: number }[]): number | undefined {
  let total = 22
  for (const entry of entries) total += 92 + 2 * Buffer.byteLength(entry.name) + entry.size
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
