import type { QueueEntry, QueueStore } from './queue.js'

/** The little of IndexedDB the store uses (the SDK's types carry no DOM library). */
type IdbRequest<T = unknown> = { result: T; error: unknown; onsuccess: (() => void) | null; onerror: (() => void) | null }
type IdbObjectStore = { getAll(): IdbRequest<QueueEntry[]>; put(value: QueueEntry): IdbRequest; delete(key: string): IdbRequest }
type IdbDatabase = {
  transaction(
    name: string,
    mode: 'readonly' | 'readwrite',
  ): {
    objectStore(name: string): IdbObjectStore
    oncomplete: (() => void) | null
    onerror: (() => void) | null
    onabort: (() => void) | null
    error: unknown
  }
  createObjectStore(name: string, options: { keyPath: string }): unknown
}
type IdbOpenRequest = IdbRequest<IdbDatabase> & { onupgradeneeded: (() => void) | null }

const CALLS = 'calls'

/** IndexedDB's errors are DOMExceptions (Errors) or null (an abort). */
const asError = (error: unknown) => (error instanceof Error ? error : new Error('IndexedDB refused the queue’s change'))

/**
 * A store in the browser's IndexedDB (database `name`): it survives a reload, a crash of the tab
 * and a restart of the kiosk. Photos are kept as the Blobs they are.
 */
export function indexedDbStore(name = 'photobooth-queue'): QueueStore {
  let database: Promise<IdbDatabase> | undefined
  const open = () =>
    (database ??= new Promise((resolve, reject) => {
      const factory = (globalThis as { indexedDB?: { open(name: string, version: number): IdbOpenRequest } }).indexedDB
      if (!factory) return reject(new TypeError('IndexedDB is not available here: use memoryStore() or fileStore()'))
      const request = factory.open(name, 1)
      request.onupgradeneeded = () => void request.result.createObjectStore(CALLS, { keyPath: 'id' })
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => reject(asError(request.error))
    }))
  const run = async <T>(mode: 'readonly' | 'readwrite', act: (store: IdbObjectStore) => IdbRequest<T>): Promise<T> => {
    const transaction = (await open()).transaction(CALLS, mode)
    const request = act(transaction.objectStore(CALLS))
    // Settled when the transaction is committed, not when the request succeeds: then it is on disk.
    return new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve(request.result)
      transaction.onerror = transaction.onabort = () => reject(asError(transaction.error))
    })
  }
  return {
    load: () => run('readonly', (store) => store.getAll()),
    save: async (entry) => void (await run('readwrite', (store) => store.put(entry))),
    remove: async (id) => void (await run('readwrite', (store) => store.delete(id))),
  }
}
