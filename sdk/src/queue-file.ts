/**
 * A file store for the offline queue in Node (`@photobooth/sdk/queue-file`): a booth or kiosk app
 * on a laptop keeps its queue across restarts and power cuts.
 */
import { openAsBlob } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'

import type { QueueEntry, QueueStore } from './queue.js'

type Stored = Omit<QueueEntry, 'photos'> & { photoCount?: number }

const ENTRY = /^([0-9a-zA-Z-]{16,100})\.json$/
const PHOTO = /^([0-9a-zA-Z-]{16,100})\.\d+\.jpg$/

/** Writes a file whole and on disk before it is visible under its name: a power cut leaves the old one or the new one. */
async function writeDurably(path: string, temporary: string, bytes: Uint8Array | string): Promise<void> {
  const file = await open(temporary, 'w')
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temporary, path)
}

/**
 * A directory of one JSON file per queued call and an upload's photos as files beside it, written
 * once and read back from disk when sent, not held in memory. Each file is written to a temporary
 * name, synced and renamed. At load, what a crash left is set aside rather than trusted: an entry
 * that cannot be read (or whose photos are gone) is renamed `<name>.unreadable` and skipped, and
 * temporary files and photos of no entry are removed.
 */
export function fileStore(directory: string): QueueStore {
  const made = mkdir(directory, { recursive: true })
  let writes = 0
  const photoPath = (id: string, index: number) => join(directory, `${id}.${index}.jpg`)
  const read = async (name: string): Promise<QueueEntry | undefined> => {
    try {
      const { photoCount, ...entry } = JSON.parse(await readFile(join(directory, name), 'utf8')) as Stored
      if (typeof entry.id !== 'string' || typeof entry.seq !== 'number' || typeof entry.route !== 'string')
        throw new TypeError('not an entry')
      if (photoCount === undefined) return entry as QueueEntry
      const photos = await Promise.all(Array.from({ length: photoCount }, (_, index) => openAsBlob(photoPath(entry.id, index))))
      return { ...entry, photos } as QueueEntry
    } catch {
      await rename(join(directory, name), join(directory, `${name}.unreadable`)).catch(() => undefined)
      return undefined
    }
  }
  return {
    async load() {
      await made
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
      await made
      const { photos, ...rest } = entry
      const path = join(directory, `${entry.id}.json`)
      const existed = await readFile(path).then(
        () => true,
        () => false,
      )
      if (photos && !existed) {
        for (const [index, photo] of photos.entries()) {
          const bytes = photo instanceof Uint8Array ? photo : new Uint8Array(await photo.arrayBuffer())
          await writeDurably(photoPath(entry.id, index), `${photoPath(entry.id, index)}.${++writes}.tmp`, bytes)
        }
      }
      const stored: Stored = { ...rest, ...(photos ? { photoCount: photos.length } : {}) }
      // A temporary name of its own: an upload saves its progress from several PUTs at once.
      await writeDurably(path, `${path}.${++writes}.tmp`, JSON.stringify(stored))
    },
    async remove(id) {
      await made
      const path = join(directory, `${id}.json`)
      const { photoCount } = await readFile(path, 'utf8')
        .then((text) => JSON.parse(text) as Partial<Stored>)
        .catch((): Partial<Stored> => ({}))
      await rm(path, { force: true })
      for (let index = 0; index < (photoCount ?? 0); index++) await rm(photoPath(id, index), { force: true })
    },
  }
}
