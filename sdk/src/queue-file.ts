/**
 * A file store for the offline queue in Node (`@photobooth/sdk/queue-file`): a booth or kiosk app
 * on a laptop keeps its queue across restarts and power cuts.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { openAsBlob } from 'node:fs'
import { join } from 'node:path'

import type { QueueEntry, QueueStore } from './queue.js'

type Stored = Omit<QueueEntry, 'photos'> & { photoCount?: number }

const ENTRY = /^([0-9a-zA-Z-]{16,100})\.json$/

/**
 * A directory of one JSON file per queued call (written to a temporary name, then renamed: a crash
 * leaves the old file or the new one, never half of one) and an upload's photos as files beside it,
 * written once and read back from disk when sent, not held in memory.
 */
export function fileStore(directory: string): QueueStore {
  const made = mkdir(directory, { recursive: true })
  let writes = 0
  const photoPath = (id: string, index: number) => join(directory, `${id}.${index}.jpg`)
  return {
    async load() {
      await made
      const names = (await readdir(directory)).filter((name) => ENTRY.test(name))
      return Promise.all(
        names.map(async (name) => {
          const { photoCount, ...entry } = JSON.parse(await readFile(join(directory, name), 'utf8')) as Stored
          if (photoCount === undefined) return entry as QueueEntry
          const photos = await Promise.all(Array.from({ length: photoCount }, (_, index) => openAsBlob(photoPath(entry.id, index))))
          return { ...entry, photos } as QueueEntry
        }),
      )
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
          await writeFile(photoPath(entry.id, index), bytes)
        }
      }
      const stored: Stored = { ...rest, ...(photos ? { photoCount: photos.length } : {}) }
      // A temporary name of its own: an upload saves its progress from several PUTs at once.
      const temporary = `${path}.${++writes}.tmp`
      await writeFile(temporary, JSON.stringify(stored))
      await rename(temporary, path)
    },
    async remove(id) {
      await made
      const path = join(directory, `${id}.json`)
      const { photoCount } = (await readFile(path, 'utf8').then(
        (text) => JSON.parse(text) as Stored,
        () => ({}),
      )) as Partial<Stored>
      await rm(path, { force: true })
      for (let index = 0; index < (photoCount ?? 0); index++) await rm(photoPath(id, index), { force: true })
    },
  }
}
