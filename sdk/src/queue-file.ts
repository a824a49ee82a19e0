/**
 * A file store for the offline queue in Node (`@photobooth/sdk/queue-file`): a booth or kiosk app
 * on a laptop keeps its queue across restarts and power cuts.
 */
import { openAsBlob, rmSync } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { hostname, uptime } from 'node:os'
import { join, resolve } from 'node:path'

import type { QueueEntry, QueueStore } from './queue.js'

type Stored = Omit<QueueEntry, 'photos'> & { photoCount?: number }

const ENTRY = /^([0-9a-zA-Z-]{16,100})\.json$/
const PHOTO = /^([0-9a-zA-Z-]{16,100})\.\d+\.jpg$/
const LOCK = '.lock'

/** Another process holds the folder's queue: two queues on one folder would send each call twice. */
export class QueueInUseError extends Error {
  constructor(
    readonly directory: string,
    readonly holder: { pid: number; host: string },
  ) {
    super(
      `The queue folder ${directory} is in use by process ${holder.pid} on ${holder.host}: one queue per folder. If no such process runs, remove ${join(directory, LOCK)}.`,
    )
    this.name = 'QueueInUseError'
  }
}

/** Writes a file whole and on disk before it is visible under its name: a power cut leaves the old one or the new one. */
async function writeDurably(path: string, temporary: string, bytes: Uint8Array | string | Blob): Promise<void> {
  const file = await open(temporary, 'w')
  try {
    // A Blob (a photo, perhaps a file's) is copied a chunk at a time, never read whole into memory.
    if (bytes instanceof Blob) for await (const chunk of bytes.stream()) await file.write(chunk)
    else await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temporary, path)
}

/** When this machine started, to the minute: a lock written before a reboot is stale whatever its pid. */
const bootMinute = () => Math.round((Date.now() / 1000 - uptime()) / 60)

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The folders this process holds, each with its stores' count: stores of one process share its lock. */
const held = new Map<string, { stores: number; taken: Promise<() => void> }>()

/**
 * Takes the folder for this process: `.lock` names its pid, host and boot. A lock left by a process
 * that is gone (killed, or before a reboot) on this host is taken over; a live one is refused.
 */
async function takeLock(directory: string): Promise<() => void> {
  const path = join(directory, LOCK)
  const mine = { pid: process.pid, host: hostname(), boot: bootMinute() }
  for (let tries = 0; ; tries++) {
    try {
      const file = await open(path, 'wx')
      await file.writeFile(JSON.stringify(mine))
      await file.close()
      const release = () => rmSync(path, { force: true })
      // Gone with the process however it ends but a kill (the next start takes a dead one's lock over).
      process.once('exit', release)
      return () => {
        process.off('exit', release)
        release()
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw error
      const holder = await readFile(path, 'utf8')
        .then((text) => JSON.parse(text) as typeof mine)
        .catch(() => undefined)
      // Half written (a crash between open and write), or a holder here that is gone: stale.
      const stale = !holder || (holder.host === mine.host && (Math.abs(holder.boot - mine.boot) > 1 || !isRunning(holder.pid)))
      if (!stale) throw new QueueInUseError(directory, holder)
      await rm(path, { force: true })
    }
  }
}

async function lock(directory: string): Promise<() => void> {
  const key = resolve(directory)
  let entry = held.get(key)
  if (!entry) held.set(key, (entry = { stores: 0, taken: takeLock(directory) }))
  entry.stores++
  const taken = entry
  try {
    await taken.taken
  } catch (error) {
    if (--taken.stores === 0) held.delete(key)
    throw error
  }
  return () => {
    if (--taken.stores > 0) return
    held.delete(key)
    void taken.taken.then((release) => release())
  }
}

/**
 * A directory of one JSON file per queued call and an upload's photos as files beside it, written
 * once and read back from disk when sent: once saved, an entry's photos are Blobs of its files, and
 * the photos given are no longer held. Each file is written to a temporary name, synced and renamed.
 * At load, what a crash left is set aside rather than trusted: an entry that cannot be read (or
 * whose photos are gone) is renamed `<name>.unreadable` and skipped, and temporary files and photos
 * of no entry are removed. The folder is locked for one process (`QueueInUseError` for a second);
 * `close()` (the queue's) lets it go.
 */
export function fileStore(directory: string): QueueStore {
  let release: (() => void) | undefined
  let locked: Promise<void> | undefined
  // Taken at first use, and again after close() if the store is used again.
  const ready = () =>
    (locked ??= mkdir(directory, { recursive: true })
      .then(() => lock(directory))
      .then((unlock) => void (release = unlock)))
  let writes = 0
  const photoPath = (id: string, index: number) => join(directory, `${id}.${index}.jpg`)
  const photosOf = (id: string, count: number) => Promise.all(Array.from({ length: count }, (_, index) => openAsBlob(photoPath(id, index))))
  const read = async (name: string): Promise<QueueEntry | undefined> => {
    try {
      const { photoCount, ...entry } = JSON.parse(await readFile(join(directory, name), 'utf8')) as Stored
      if (typeof entry.id !== 'string' || typeof entry.seq !== 'number' || typeof entry.route !== 'string')
        throw new TypeError('not an entry')
      if (photoCount === undefined) return entry as QueueEntry
      return { ...entry, photos: await photosOf(entry.id, photoCount) } as QueueEntry
    } catch {
      await rename(join(directory, name), join(directory, `${name}.unreadable`)).catch(() => undefined)
      return undefined
    }
  }
  return {
    async load() {
      await ready()
      const names = await readdir(directory)
      const entries = (await Promise.all(names.filter((name) => ENTRY.test(name)).map(read))).filter((entry) => entry !== undefined)
      const ids = new Set(entries.map((entry) => entry.id))
      for (const name of names) {
        const orphan = name.endsWith('.tmp') || (PHOTO.test(name) && !ids.has(PHOTO.exec(name)![1]!))
        if (orphan) await rm(join(directory, name), { force: true })
      }
      return entries
    },
    async save(entry) {
      await ready()
      const { photos, ...rest } = entry
      const path = join(directory, `${entry.id}.json`)
      const existed = await readFile(path).then(
        () => true,
        () => false,
      )
      if (photos && !existed) {
        for (const [index, photo] of photos.entries()) {
          await writeDurably(photoPath(entry.id, index), `${photoPath(entry.id, index)}.${++writes}.tmp`, photo)
        }
        // From now on read from disk when sent: ten queued sessions of camera photos hold no memory.
        entry.photos = await photosOf(entry.id, photos.length)
      }
      const stored: Stored = { ...rest, ...(photos ? { photoCount: photos.length } : {}) }
      // A temporary name of its own: an upload saves its progress from several PUTs at once.
      await writeDurably(path, `${path}.${++writes}.tmp`, JSON.stringify(stored))
    },
    async remove(id) {
      await ready()
      const path = join(directory, `${id}.json`)
      const { photoCount } = await readFile(path, 'utf8')
        .then((text) => JSON.parse(text) as Partial<Stored>)
        .catch((): Partial<Stored> => ({}))
      await rm(path, { force: true })
      for (let index = 0; index < (photoCount ?? 0); index++) await rm(photoPath(id, index), { force: true })
    },
    close() {
      release?.()
      release = undefined
      locked = undefined
    },
  }
}
