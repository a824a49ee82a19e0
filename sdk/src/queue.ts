/**
 * The offline queue, `@photobooth/sdk/queue`: a kiosk's registrations and a booth's uploads,
 * completions and cancellations kept in a store (IndexedDB in a browser, a file in Node: see
 * `@photobooth/sdk/queue-file`) with the Idempotency-Key each was first sent with, and sent in
 * order when the service answers again, paced under its rate limit. A call the service refuses
 * for good (a 4xx that no retry fixes) is given back and dropped, never retried forever.
 */
import type { ClientPromiseResult } from '@orpc/client'

import { ApiError, NetworkError, TimeoutError } from './errors.js'
import type { PhotoBoothClient, RouteError } from './index.js'
import { transportOf, uploaderOf } from './registry.js'
import { backoffDelay, isInFlightConflict, resolveRetry, sleep } from './retry.js'
import { newIdempotencyKey } from './fetch-link.js'
// Types only: the upload's code comes with a booth client (registry.ts), so a kiosk's queue ships none of it.
import type { CompletedSession, PhotoSource, UploadError, UploadProgress } from './upload.js'

type Kiosk = PhotoBoothClient['kiosk']
type Booth = PhotoBoothClient['booth']
type InputOf<T> = T extends (input: infer I, ...rest: never[]) => unknown ? I : never

/** What the queue can hold: a call's route and its input (plain JSON), with the photos of an upload. */
export type QueuedCall =
  | { route: 'kiosk.registerGuests'; input: InputOf<Kiosk['registerGuests']> }
  | { route: 'booth.complete'; input: InputOf<Booth['complete']> }
  | { route: 'booth.cancel'; input: InputOf<Booth['cancel']> }
  | { route: 'booth.uploadPhotos'; input: { sessionId: string }; progress: UploadProgress }

/** One queued call as the store keeps it. `id` is its Idempotency-Key, the same at every try. */
export type QueueEntry = QueuedCall & {
  id: string
  /** Its place in the queue: calls go in this order. */
  seq: number
  /** When it was queued (ms since the epoch). */
  queuedAt: number
  /** Tries so far that got no usable answer. */
  tries: number
  /** An upload's photos (the store keeps them beside the entry: IndexedDB as they are, a file store as files). */
  photos?: (Blob | Uint8Array)[]
}

/** Where queued calls live between tries, reloads and restarts. One queue per store at a time. */
export interface QueueStore {
  /** Every entry kept, in any order. */
  load(): Promise<QueueEntry[]>
  /** Adds an entry, or replaces the one with its id (an upload's progress). */
  save(entry: QueueEntry): Promise<void>
  remove(id: string): Promise<void>
  /** Lets the store go (a file store's lock on its folder), when the queue is closed. */
  close?(): void
}

/** The routes a queue sends. */
export type QueuedRoute = QueuedCall['route']

/** What each route answers, and what it may be refused with. */
export type QueuedRouteTypes = {
  'kiosk.registerGuests': { result: Awaited<ReturnType<Kiosk['registerGuests']>>; error: RouteError<Kiosk['registerGuests']> }
  'booth.complete': { result: CompletedSession; error: RouteError<Booth['complete']> }
  'booth.cancel': { result: Awaited<ReturnType<Booth['cancel']>>; error: RouteError<Booth['cancel']> }
  'booth.uploadPhotos': { result: CompletedSession; error: UploadError }
}

/**
 * What a call's entry shows the app: enough for a screen, no guest's data. `sessionId`: the session a
 * booth's call acts on, so that an app pairs its own records with the queue's after a restart.
 */
export type QueuedCallInfo<R extends QueuedRoute = QueuedRoute> = {
  id: string
  route: R
  queuedAt: number
  tries: number
  sessionId?: string
}

/** Per route: `route` (the call's) narrows `result` and `error` to that route's types. */
type Sent<R extends QueuedRoute> = { route: R; call: QueuedCallInfo<R>; result: QueuedRouteTypes[R]['result']; count: number }
type Failed<R extends QueuedRoute> = {
  route: R
  call: QueuedCallInfo<R>
  error: QueuedRouteTypes[R]['error']
  count: number
  photos?: Uint8Array[]
}

export type QueueEvents = {
  /** A call was added to the queue (it may be sent at once). */
  queued: { call: QueuedCallInfo; count: number }
  /** The service took it (`result`: the route's answer; a replay of an earlier try's answer included). */
  sent: { [R in QueuedRoute]: Sent<R> }[QueuedRoute]
  /**
   * The service refused it for good (a 4xx no retry fixes): dropped from the queue. An upload's
   * photos come with it, read into memory before the store let them go: keep them if they matter.
   */
  failed: { [R in QueuedRoute]: Failed<R> }[QueuedRoute]
  /** No usable answer (offline, a timeout, a 5xx, a 429): it stays first, tried again in `retryInMs`. */
  waiting: { call: QueuedCallInfo; error: unknown; retryInMs: number; count: number }
  /** An upload's photo is stored: `uploaded` of `total`, their `bytes` (those stored before a restart included). */
  progress: { call: QueuedCallInfo<'booth.uploadPhotos'>; uploaded: number; total: number; bytes: number }
}

/** What a queued call gives its caller: the answer if it went at once, else its place in the queue. */
export type QueueOutcome<T> = { status: 'sent'; result: T } | { status: 'queued'; id: string }

/** A queue method's promise: its outcome, or the route's refusal (typed for `safe` and `isDefinedError`). */
type Outcome<R extends QueuedRoute> = ClientPromiseResult<QueueOutcome<QueuedRouteTypes[R]['result']>, QueuedRouteTypes[R]['error']>

/** A client with the routes a queue sends: a kiosk's, a booth's, or both (`createClient`'s). */
export type QueueClient = Partial<Pick<PhotoBoothClient, 'kiosk' | 'booth'>>
type WithKiosk = Pick<PhotoBoothClient, 'kiosk'>
type WithBooth = Pick<PhotoBoothClient, 'booth'>

export type OfflineQueueOptions<TClient extends QueueClient = QueueClient> = {
  /** A client of the routes it sends (`createKioskClient`, `createBoothClient` or `createClient`). */
  client: TClient
  /** Default `memoryStore()`, which does not survive a reload: use `indexedDbStore()` or `fileStore()`. */
  store?: QueueStore
  /** Calls sent per minute at most while the queue drains. Default 50: under the service's 60 a minute per address. */
  perMinute?: number
  /** The pause after a try with no usable answer, doubled each time (with jitter), in ms. Default 1000 to 30000. */
  retry?: { minDelayMs?: number; maxDelayMs?: number }
  /** Each try's whole time in ms (the client's retries within it). Default 10000. */
  deadlineMs?: number
  /**
   * While the service is away, ask its `GET /healthz` every `intervalMs` (default 2000), each ask
   * bounded by the same time, and send at once when it answers, rather than wait out the pause (up to
   * 30 s). On where there is no browser `online` event (Node); `false` turns it off.
   */
  probe?: { intervalMs?: number } | false
  /**
   * A queued upload's PUTs: how many at once (default 3) and each one's timeout in ms (default 60000;
   * a 6 MB photo over a slow uplink shared by three PUTs may need more).
   */
  upload?: { concurrency?: number; timeoutMs?: number }
  /** For tests: the clock the pacing and the pauses use. */
  clock?: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<void> }
}

/** The queue's own pauses: a pause is cut short by `wake()` (the browser's `online` event, a new call). */
const realClock = { now: () => Date.now(), sleep: (ms: number, signal: AbortSignal) => sleep(ms, signal).catch(() => undefined) }

/** A failure worth another try later: no answer, the service busy or away, or over its rate limit. */
export function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof TimeoutError) return true
  if (!(error instanceof ApiError)) return false
  return error.status >= 500 || error.status === 408 || error.status === 429 || isInFlightConflict(error)
}

/** A store in memory: for tests, and for an app that accepts losing the queue with the page. */
export function memoryStore(): QueueStore {
  const entries = new Map<string, QueueEntry>()
  return {
    load: async () => [...entries.values()],
    save: async (entry) => void entries.set(entry.id, entry),
    remove: async (id) => void entries.delete(id),
  }
}

/** A browser's window, for its `online` event (the SDK's types carry no DOM library). */
const browserWindow = globalThis as {
  addEventListener?: (type: 'online', listener: () => void) => void
  removeEventListener?: (type: 'online', listener: () => void) => void
}

type Listener<K extends keyof QueueEvents> = (event: QueueEvents[K]) => void

/**
 * A durable queue of a kiosk's or booth's changes. Each call (`registerGuests`, `complete`,
 * `cancel`, `uploadPhotos`) is saved first, then sent: at once when nothing waits before it,
 * else in its turn. Its promise answers `{ status: 'sent', result }` when the service took it on
 * its first try, `{ status: 'queued', id }` when it waits (offline, a timeout, a 5xx, a 429, or
 * calls before it), and rejects with the route's `ApiError` when the service refused it for good.
 * Later outcomes come as events.
 */
export class OfflineQueue<TClient extends QueueClient = QueueClient> {
  private readonly store: QueueStore
  private readonly clock: NonNullable<OfflineQueueOptions['clock']>
  private readonly intervalMs: number
  private readonly retry: ReturnType<typeof resolveRetry>
  private entries: QueueEntry[] = []
  private readonly listeners = new Map<keyof QueueEvents, Set<(event: never) => void>>()
  /** The first outcome of each call added by this queue, for its caller. */
  private readonly firstOutcome = new Map<string, (outcome: { sent: unknown } | { queued: true } | { failed: unknown }) => void>()
  private pause = new AbortController()
  private readonly stopped = new AbortController()
  private lastSentAt = -Infinity
  private waitingSince: number | undefined
  private nextSeq = 0
  /** The last save asked for: each waits for the one before. */
  private saving: Promise<unknown> = Promise.resolve()
  /** Resolves once the stored entries are loaded and the queue is sending. */
  readonly ready: Promise<void>
  private idle: (() => void)[] = []

  constructor(private readonly options: OfflineQueueOptions<TClient>) {
    this.store = options.store ?? memoryStore()
    this.clock = options.clock ?? realClock
    this.intervalMs = 60_000 / (options.perMinute ?? 50)
    this.retry = resolveRetry({ minDelayMs: options.retry?.minDelayMs ?? 1000, maxDelayMs: options.retry?.maxDelayMs ?? 30_000 })
    this.ready = this.store.load().then((entries) => {
      this.entries = entries.sort((a, b) => a.seq - b.seq)
      this.nextSeq = (this.entries.at(-1)?.seq ?? 0) + 1
      void this.drain()
    })
    // Awaited by every call and by the app; a store that cannot load must not also crash the process.
    this.ready.catch(() => undefined)
    // A browser says when it is back online: no need to wait out the pause.
    browserWindow.addEventListener?.('online', this.wake)
  }

  /** How often the service is asked whether it is back, in ms; undefined: never. */
  private get probeMs(): number | undefined {
    const { probe } = this.options
    if (probe === false || (probe === undefined && browserWindow.addEventListener)) return undefined
    return probe?.intervalMs ?? 2000
  }

  /** Calls waiting to be sent, the one being sent included: "3 guests waiting to sync". */
  get count(): number {
    return this.entries.length
  }

  /** What waits, in order (no guest's data). */
  list(): QueuedCallInfo[] {
    return this.entries.map(info)
  }

  on<K extends keyof QueueEvents>(type: K, listener: Listener<K>): () => void {
    const set = this.listeners.get(type) ?? new Set()
    this.listeners.set(type, set.add(listener))
    return () => void set.delete(listener)
  }

  /** Registers guests: sent now if it can be, else kept and sent in its turn (`kiosk.registerGuests`). */
  // Each method is typed for the queues whose client has its routes: a kiosk's queue has no `complete`.
  registerGuests(this: OfflineQueue<WithKiosk>, input: InputOf<Kiosk['registerGuests']>): Outcome<'kiosk.registerGuests'> {
    return this.add({ route: 'kiosk.registerGuests', input })
  }

  /** Completes a session with photos already stored (`booth.complete`). */
  complete(this: OfflineQueue<WithBooth>, input: InputOf<Booth['complete']>): Outcome<'booth.complete'> {
    return this.add({ route: 'booth.complete', input })
  }

  cancel(this: OfflineQueue<WithBooth>, input: InputOf<Booth['cancel']>): Outcome<'booth.cancel'> {
    return this.add({ route: 'booth.cancel', input })
  }

  /**
   * A booth's whole upload, kept with its photos: after a reset or a restart it resumes, photos
   * already stored are not sent again, and the session is completed once.
   */
  uploadPhotos(this: OfflineQueue<WithBooth>, sessionId: string, photos: readonly PhotoSource[]): Outcome<'booth.uploadPhotos'> {
    const id = newIdempotencyKey()
    return this.add(
      { route: 'booth.uploadPhotos', input: { sessionId }, progress: { idempotencyKey: id, stored: photos.map(() => null), round: 0 } },
      // Kept as bytes: a stream can be read once, and a file store writes bytes. A Blob of a file
      // (`openAsBlob`) stays on disk.
      Promise.all(photos.map(async (photo) => (photo instanceof ReadableStream ? new Response(photo).blob() : photo))),
      id,
    )
  }

  /** Resolves when nothing waits (at once when empty). */
  async drained(): Promise<void> {
    await this.ready
    if (this.entries.length === 0) return
    await new Promise<void>((resolve) => this.idle.push(resolve))
  }

  /** Ends the pause before the next try (the app knows the network is back). */
  readonly wake = (): void => {
    this.pause.abort()
    this.pause = new AbortController()
  }

  /**
   * Stops sending: a call being sent is abandoned (its try aborted) and, like every other, stays in
   * the store for the next start, which sends it again with its key. No event comes after.
   */
  close(): void {
    this.stopped.abort()
    // Calls still waiting for their first outcome are kept in the store: say so rather than never answer.
    for (const id of [...this.firstOutcome.keys()]) this.settle(id, { queued: true })
    this.wake()
    browserWindow.removeEventListener?.('online', this.wake)
    this.store.close?.()
  }

  private async add<T>(call: QueuedCall, photosRead?: Promise<(Blob | Uint8Array)[]>, id = newIdempotencyKey()): Promise<QueueOutcome<T>> {
    const photos = await photosRead
    await this.ready
    const entry: QueueEntry = { ...call, id, seq: this.nextSeq++, queuedAt: this.clock.now(), tries: 0, ...(photos ? { photos } : {}) }
    // Saves are chained, so entries join the line in the order of the calls: a store's saves (a file's
    // fsync) may finish in any order, and calls made at once would otherwise be sent out of order.
    const saved = this.saving.then(() => this.store.save(entry))
    this.saving = saved.catch(() => undefined)
    await saved
    const outcome = new Promise<{ sent: unknown } | { queued: true } | { failed: unknown }>((resolve) => this.firstOutcome.set(id, resolve))
    this.entries.push(entry)
    this.emit('queued', { call: info(entry), count: this.count })
    // While the service is away, or behind a backlog, it waits its turn; else its caller gets the answer.
    if (this.waitingSince !== undefined || this.entries.length > 3) this.settle(id, { queued: true })
    this.wake()
    const first = await outcome
    if ('failed' in first) throw first.failed
    return 'sent' in first ? { status: 'sent', result: first.sent as T } : { status: 'queued', id }
  }

  private settle(id: string, outcome: { sent: unknown } | { queued: true } | { failed: unknown }): void {
    this.firstOutcome.get(id)?.(outcome)
    this.firstOutcome.delete(id)
  }

  private emit<K extends keyof QueueEvents>(type: K, event: QueueEvents[K]): void {
    if (this.stopped.signal.aborted) return
    for (const listener of this.listeners.get(type) ?? []) {
      try {
        ;(listener as Listener<K>)(event)
      } catch {
        // An app's listener that throws must not stop the queue.
      }
    }
  }

  /** Waits `ms` (forever: until woken), or less when woken. */
  private async wait(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped.signal.aborted) return
    const { signal } = this.pause
    if (Number.isFinite(ms)) return this.clock.sleep(ms, signal)
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
  }

  private async drain(): Promise<void> {
    while (!this.stopped.signal.aborted) {
      const entry = this.entries[0]
      if (!entry) {
        this.idle.splice(0).forEach((resolve) => resolve())
        await this.wait(Infinity)
        continue
      }
      // Paced: a queue drained after an outage stays under the service's rate limit. A wake (a new
      // call, the browser back online) ends a pause after a failure, never the pace.
      for (
        let left = this.lastSentAt + this.intervalMs - this.clock.now();
        left > 0;
        left = this.lastSentAt + this.intervalMs - this.clock.now()
      ) {
        if (this.stopped.signal.aborted) return
        await this.wait(left)
      }
      if (this.stopped.signal.aborted) return
      this.lastSentAt = this.clock.now()
      try {
        const result = await this.send(entry, this.stopped.signal)
        this.waitingSince = undefined
        await this.forget(entry)
        this.emit('sent', { route: entry.route, call: info(entry), result, count: this.count } as QueueEvents['sent'])
        this.settle(entry.id, { sent: result })
      } catch (error) {
        // Closed while it was being sent: it stays in the store as it was, for the next start.
        if (this.stopped.signal.aborted) return
        if (!isTransient(error)) {
          const photos = await Promise.all((entry.photos ?? []).map(inMemory)).catch(() => undefined)
          await this.forget(entry)
          // A caller still waiting (a call sent at once) gets the refusal itself; only a call given
          // back as queued comes back as an event: one or the other, never both.
          if (this.firstOutcome.has(entry.id)) this.settle(entry.id, { failed: error })
          else
            this.emit('failed', {
              route: entry.route,
              call: info(entry),
              error,
              count: this.count,
              ...(photos?.length ? { photos } : {}),
            } as QueueEvents['failed'])
          continue
        }
        entry.tries++
        // A store that cannot write (a full disk, IndexedDB's quota) must not stop the queue: the
        // entry stays as it was saved, with its key, and is tried again.
        await this.store.save(entry).catch(() => undefined)
        this.waitingSince ??= this.clock.now()
        const retryInMs = pauseAfter(error, entry.tries - 1, this.retry, this.intervalMs)
        this.emit('waiting', { call: info(entry), error, retryInMs, count: this.count })
        // Everything behind it waits too: the queue keeps its order.
        for (const waiting of this.entries) this.settle(waiting.id, { queued: true })
        const probing = isAway(error) ? this.probeUntilBack(this.pause.signal) : undefined
        await this.wait(retryInMs)
        this.wake()
        await probing
      }
    }
  }

  /**
   * Asks the service whether it answers again, every `probeMs` of real time (an injected clock would
   * make it a busy loop), until it does (then the pause ends) or the pause ends otherwise.
   */
  private async probeUntilBack(pause: AbortSignal): Promise<void> {
    const intervalMs = this.probeMs
    if (intervalMs === undefined) return
    const transport = transportOf(this.options.client)
    if (transport.baseUrl === undefined) return
    while (!pause.aborted) {
      await sleep(intervalMs, pause).catch(() => undefined)
      if (pause.aborted) return
      const answered = await transport
        .fetch(`${transport.baseUrl}/healthz`, { signal: AbortSignal.any([pause, AbortSignal.timeout(intervalMs)]) })
        .then(
          async (response) => {
            await response.body?.cancel()
            return response.status < 500
          },
          () => false,
        )
      if (answered && !pause.aborted) return this.wake()
    }
  }

  private async forget(entry: QueueEntry): Promise<void> {
    this.entries = this.entries.filter((each) => each.id !== entry.id)
    // A failed removal sends the call once more after a restart: the service replays its answer.
    await this.store.remove(entry.id).catch(() => undefined)
  }

  private send(entry: QueueEntry, signal: AbortSignal): Promise<unknown> {
    const { client } = this.options
    const { kiosk, booth } = client
    const context = { idempotencyKey: entry.id, deadlineMs: this.options.deadlineMs ?? 10_000 }
    switch (entry.route) {
      case 'kiosk.registerGuests':
        return kiosk!.registerGuests(entry.input, { context, signal })
      case 'booth.complete':
        return booth!.complete(entry.input, { context, signal })
      case 'booth.cancel':
        return booth!.cancel(entry.input, { context, signal })
      case 'booth.uploadPhotos':
        // The client itself, not a copy: the upload helper finds its transport by it.
        return uploaderOf(client)(
          client as Pick<PhotoBoothClient, 'booth'>,
          entry.input.sessionId,
          entry.photos ?? [],
          entry.progress,
          () =>
            // Progress not saved costs a photo sent again after a restart (storage's 412 then says it is there).
            this.store.save(entry).catch(() => undefined),
          // One try per photo: the queue's own pauses, which wake() and close() cut short, come between.
          {
            ...this.options.upload,
            signal,
            retry: false,
            onUploaded: (uploaded, total, bytes) =>
              this.emit('progress', { call: info(entry) as QueuedCallInfo<'booth.uploadPhotos'>, uploaded, total, bytes }),
          },
        )
    }
  }
}

const inMemory = async (photo: Blob | Uint8Array) => (photo instanceof Uint8Array ? photo : new Uint8Array(await photo.arrayBuffer()))

function info(entry: QueueEntry): QueuedCallInfo {
  const sessionId = entry.route === 'kiosk.registerGuests' ? undefined : sessionOf(entry)
  return { id: entry.id, route: entry.route, queuedAt: entry.queuedAt, tries: entry.tries, ...(sessionId !== undefined && { sessionId }) }
}

/** The session a booth's call acts on. */
function sessionOf(entry: Exclude<QueueEntry, { route: 'kiosk.registerGuests' }>): string {
  return entry.route === 'booth.uploadPhotos' ? entry.input.sessionId : entry.input.params.sessionId
}

/** The service did not answer, or failed: worth asking whether it is back (not a 429, which says when). */
function isAway(error: unknown): boolean {
  return !(error instanceof ApiError && error.status === 429)
}

/** A 429 waits for the rate limit's window (or its Retry-After); anything else backs off. */
function pauseAfter(error: unknown, attempt: number, retry: ReturnType<typeof resolveRetry>, intervalMs: number): number {
  const retryAfter = error instanceof ApiError ? Number(error.headers.get('retry-after')) : NaN
  if (retryAfter > 0) return retryAfter * 1000
  // The service counts a minute per address: a few seconds apart, then longer.
  const floor = error instanceof ApiError && error.status === 429 ? Math.max(intervalMs, 10_000) : retry.minDelayMs
  return Math.max(floor, backoffDelay(attempt, retry))
}

/** A queue that starts loading its store and sending at once; see `OfflineQueue`. */
export function createOfflineQueue<TClient extends QueueClient>(options: OfflineQueueOptions<TClient>): OfflineQueue<TClient> {
  return new OfflineQueue(options)
}

export { indexedDbStore } from './queue-indexeddb.js'
