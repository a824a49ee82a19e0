/**
 * The connector's core, whatever the input: booth sessions come in (`open`, photos added, `close` or
 * `abandon`), each is journaled on disk, then, in the order they closed, mapped to a session of the
 * set's queue (the next one the kiosk registered, or the one a file name named) by a claim, and
 * uploaded through the SDK's offline queue, which resumes after a drop or a restart and completes
 * each session once. Every step is written down before it is taken; an original is never changed.
 */
import { randomUUID } from 'node:crypto'
import { openAsBlob } from 'node:fs'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { ApiError, createBoothClient, isApiError, NetworkError, TimeoutError, type BoothClient } from '@photobooth/sdk/booth'
import { createOfflineQueue, type OfflineQueue, type QueueEvents } from '@photobooth/sdk/queue'
import { fileStore } from '@photobooth/sdk/queue-file'

import { whyNotAPhoto } from './jpeg.js'
import { Journal, type SessionRecord } from './journal.js'
import { showLink } from './link.js'
import { megabytes, type Logger } from './log.js'

export type ConnectorOptions = {
  serviceUrl: string
  boothKey: string
  /** The set's id, or `<event slug>/<set slug>`. */
  set: string
  state: string
  /** This booth's name in its claims (booths may share a key). */
  holder: string
  claimTtlSeconds: number
  /** A session the booth abandons: dropped, or its queue session cancelled too (keeps the order). */
  onCancel: 'drop' | 'cancel'
  logger: Logger
  /** Print the link's QR code on the terminal. */
  showQr: boolean
  mode: string
  /** How often an empty queue is asked again, in ms. */
  pollMs?: number
  /** After a session is delivered (the folder mode moves its originals to done/). */
  onDelivered?: (record: SessionRecord) => Promise<void>
  /** A file set aside (the folder mode may move it to set-aside/). */
  onSetAside?: (path: string, reason: string) => Promise<void>
}

/** A refusal the operator must fix (the key, the set): restarting will not help. */
export class RefusedError extends Error {}

/** Refusals that mean the session is gone from under the connector: its photos go to the next one. */
const SESSION_GONE = new Set([404, 409])
/** Claims of another session for one group, at most, before its photos are set aside. */
const MAX_CLAIMS = 3

const isTransient = (error: unknown) =>
  error instanceof NetworkError ||
  error instanceof TimeoutError ||
  (error instanceof ApiError && (error.status >= 500 || error.status === 408 || error.status === 429))

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

export class Connector {
  readonly journal: Journal
  private readonly client: BoothClient
  private readonly queue: OfflineQueue<BoothClient>
  private readonly records: SessionRecord[] = []
  private readonly taken = new Set<string>()
  private nextNumber = 1
  private setId: string | undefined
  private readonly stopping = new AbortController()
  private wakeUp: (() => void) | undefined
  private pumping: Promise<void> | undefined
  private away = false
  private readonly uploadStarted = new Map<number, number>()
  private readonly status = {
    startedAt: Date.now(),
    completed: 0,
    failed: 0,
    setAside: 0,
    lastError: undefined as { at: number; text: string } | undefined,
  }
  private statusTimer: NodeJS.Timeout | undefined

  constructor(private readonly options: ConnectorOptions) {
    this.journal = new Journal(options.state)
    this.client = createBoothClient({ baseUrl: options.serviceUrl, boothKey: options.boothKey, retry: false })
    this.queue = createOfflineQueue({
      client: this.client,
      store: fileStore(join(options.state, 'queue')),
      // A venue's uplink may be slow: a camera photo shared with two others may take minutes, not a timeout.
      upload: { concurrency: 3, timeoutMs: 10 * 60_000 },
    })
  }

  private get log(): Logger {
    return this.options.logger
  }

  /** Reads what an earlier run left (its journal, the SDK's queue) and starts delivering. Throws QueueInUseError. */
  async start(): Promise<void> {
    await this.queue.ready
    for (const record of await this.journal.load()) {
      this.records.push(record)
      for (const id of [record.sessionId, record.named]) if (id) this.log.conceal(id)
      for (const photo of record.photos) this.taken.add(takenKey(photo.original, photo.size, photo.mtimeMs))
    }
    this.nextNumber = (this.records.at(-1)?.number ?? 0) + 1
    this.setId = await readFile(join(this.options.state, 'set.json'), 'utf8')
      .then((text) =>
        (JSON.parse(text) as { set: string; id: string }).set === this.options.set ? (JSON.parse(text) as { id: string }).id : undefined,
      )
      .catch(() => undefined)
    this.queue.on('sent', (event) => void this.onSent(event))
    this.queue.on('failed', (event) => void this.onFailed(event))
    this.queue.on('progress', (event) => this.onProgress(event))
    this.queue.on('waiting', ({ error, retryInMs }) => this.serviceAway(error, retryInMs))
    const pending = this.records.filter((record) => !['completed', 'cancelled', 'failed'].includes(record.state))
    if (pending.length > 0)
      this.log.info('resume', `resuming ${pending.length} session(s) left by the last run`, { sessions: pending.length })
    this.pumping = this.pump()
    // Read by finished(), perhaps only once the input mode has started: a refusal before must not crash the process meanwhile.
    this.pumping.catch(() => undefined)
    this.statusTimer = setInterval(() => void this.writeStatus(), 2000)
    this.statusTimer.unref()
    await this.writeStatus()
  }

  /** Settles when delivering ends: at stop(), or rejected by a refusal the operator must fix (`RefusedError`). */
  finished(): Promise<void> {
    return this.pumping ?? Promise.resolve()
  }

  /** Stops: a try in flight is abandoned and stays journaled for the next start. */
  async stop(): Promise<void> {
    this.stopping.abort()
    this.wakeUp?.()
    this.queue.close()
    clearInterval(this.statusTimer)
    await this.pumping?.catch(() => undefined)
    await this.writeStatus()
  }

  /** Whether this exact file (path, size and time) was taken already, by this run or an earlier one. */
  hasTaken(path: string, size: number, mtimeMs: number): boolean {
    return this.taken.has(takenKey(path, size, mtimeMs))
  }

  async open(options: { source?: string; named?: string } = {}): Promise<SessionRecord> {
    if (options.named) this.log.conceal(options.named)
    const record: SessionRecord = {
      number: this.nextNumber++,
      createdAt: Date.now(),
      state: 'open',
      photos: [],
      updatedAt: Date.now(),
      ...(options.source !== undefined && { source: options.source }),
      ...(options.named !== undefined && { named: options.named }),
    }
    await this.journal.save(record)
    this.records.push(record)
    this.log.info('session.opened', `session ${record.number}: started${options.named ? ' (a session named by its files)' : ''}`, {
      session: record.number,
    })
    return record
  }

  /**
   * Takes a photo into an open session: checked (a whole JPEG), copied and journaled; or set aside
   * with its reason. The original is only read. Answers whether it was taken.
   */
  async addPhoto(record: SessionRecord, path: string): Promise<boolean> {
    const info = await stat(path).catch(() => undefined)
    if (!info?.isFile()) return this.setAside(path, 'the file is gone', 0, 0)
    if (this.hasTaken(path, info.size, info.mtimeMs)) return false
    const reason = await whyNotAPhoto(path).catch((error: unknown) => `unreadable: ${describe(error)}`)
    if (reason) return this.setAside(path, reason, info.size, info.mtimeMs)
    const copy = await this.journal.keep(record, path)
    record.photos.push({ original: path, size: info.size, mtimeMs: info.mtimeMs, copy })
    this.taken.add(takenKey(path, info.size, info.mtimeMs))
    await this.journal.save(record)
    this.log.info('photo.taken', `session ${record.number}: photo ${record.photos.length} taken (${megabytes(info.size)})`, {
      session: record.number,
      photos: record.photos.length,
      bytes: info.size,
    })
    return true
  }

  /** The session is whole: it waits its turn for a session of the queue. An empty one is dropped. */
  async close(record: SessionRecord): Promise<void> {
    if (record.state !== 'open') return
    if (record.photos.length === 0) return this.abandon(record, 'no photos')
    record.state = 'closed'
    await this.journal.save(record)
    await this.writeStatus()
    this.log.info('session.closed', `session ${record.number}: ${record.photos.length} photos, waiting for its guests' session`, {
      session: record.number,
      photos: record.photos.length,
    })
    this.wakeUp?.()
  }

  /** The booth abandoned it: its photos are dropped (the originals stay), and with --on-cancel cancel, its guests' session is cancelled. */
  async abandon(record: SessionRecord, why = 'abandoned by the booth'): Promise<void> {
    if (record.state !== 'open') return
    if (this.options.onCancel === 'cancel' && !record.named && why !== 'no photos') {
      record.cancel = true
      record.state = 'closed'
      await this.journal.save(record)
      this.log.info('session.abandoned', `session ${record.number}: ${why}; its guests' session will be cancelled`, {
        session: record.number,
      })
      this.wakeUp?.()
      return
    }
    record.state = 'cancelled'
    record.reason = why
    await this.journal.save(record)
    await this.journal.dropCopies(record)
    this.log.info('session.abandoned', `session ${record.number}: ${why}; nothing to deliver`, { session: record.number })
  }

  /** Open sessions, oldest first (a restart finds the one the booth was filling). */
  openSessions(): SessionRecord[] {
    return this.records.filter((record) => record.state === 'open')
  }

  private async setAside(path: string, reason: string, size: number, mtimeMs: number): Promise<false> {
    this.status.setAside++
    if (size > 0 || mtimeMs > 0) this.taken.add(takenKey(path, size, mtimeMs))
    await this.journal.setAside(path, reason)
    this.log.warn('photo.set-aside', `set aside ${path}: ${reason}`, { file: path, reason })
    await this.options.onSetAside?.(path, reason).catch((error: unknown) => this.fault(`moving ${path} aside failed: ${describe(error)}`))
    return false
  }

  /**
   * Asks the service once whether it takes this key and knows this set, so that a wrong setting is
   * said at start (exit 3), not at the first photo. Offline, it is found out later.
   */
  private async verify(): Promise<void> {
    try {
      const setId = this.options.set.includes('/') ? await this.resolveSet() : this.options.set
      await this.client.booth.listQueue({ setId, holder: this.options.holder })
    } catch (error) {
      if (error instanceof RefusedError) throw error
      if (isApiError(error) && error.status === 401) this.refused(error)
      if (isApiError(error) && error.status === 404)
        throw new RefusedError(`the service has no set ${this.options.set} (for this booth key)`)
      // Away: the sessions wait on disk until it answers.
    }
  }

  /** Works through the closed sessions in order: a claim, then the upload (which the SDK's queue carries on). */
  private async pump(): Promise<void> {
    await this.verify()
    while (!this.stopping.signal.aborted) {
      const record = this.records.find(
        (each) =>
          each.state === 'closed' || each.state === 'claimed' || (each.state === 'uploading' && !this.uploadStarted.has(each.number)),
      )
      if (!record) {
        await new Promise<void>((resolve) => (this.wakeUp = resolve))
        continue
      }
      try {
        if (record.state === 'closed') await this.claimFor(record)
        else if (record.state === 'claimed') await this.upload(record)
        else await this.resumeUpload(record)
      } catch (error) {
        if (this.stopping.signal.aborted) return
        if (error instanceof RefusedError) throw error
        this.fault(`session ${record.number}: ${describe(error)}`)
        await this.pause(5000)
      }
    }
  }

  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.stopping.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
    })
  }

  /** A call to the service, tried until it answers (or a refusal that is not the network's). */
  private async untilAnswered<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopping.signal.aborted) throw new Error('stopping')
      try {
        const answer = await call()
        if (this.away) {
          this.away = false
          this.log.info('service.back', 'the service answers again')
        }
        return answer
      } catch (error) {
        if (!isTransient(error)) throw error
        this.serviceAway(error, Math.min(30_000, 1000 * 2 ** attempt))
        await this.pause(Math.min(30_000, 1000 * 2 ** attempt))
      }
    }
  }

  private serviceAway(error: unknown, retryInMs: number): void {
    this.status.lastError = { at: Date.now(), text: describe(error) }
    if (this.away) return
    this.away = true
    const waiting = this.records.filter((record) => ['closed', 'claimed', 'uploading'].includes(record.state)).length
    this.log.warn(
      'service.away',
      `the service is away (${describe(error)}): ${waiting} session(s) wait on disk; trying again in ${Math.round(retryInMs / 1000)} s`,
      {
        waiting,
      },
    )
  }

  private refused(error: unknown): never {
    if (isApiError(error) && error.status === 401) throw new RefusedError('the service refused the booth key (unknown or revoked)')
    throw error
  }

  private async resolveSet(): Promise<string> {
    if (this.setId) return this.setId
    const wanted = this.options.set
    let id = wanted
    if (wanted.includes('/')) {
      const [eventSlug, setSlug] = wanted.split('/') as [string, string]
      const { events } = await this.untilAnswered('events', () => this.client.booth.listEvents({})).catch((error: unknown) =>
        this.refused(error),
      )
      const found = events.find((event) => event.slug === eventSlug)?.sets.find((set) => set.slug === setSlug)
      if (!found) throw new RefusedError(`no set ${wanted} among the events this booth key works`)
      id = found.id
    }
    this.setId = id
    await mkdir(this.options.state, { recursive: true })
    await writeFile(join(this.options.state, 'set.json'), JSON.stringify({ set: wanted, id }))
    return id
  }

  private async claimFor(record: SessionRecord): Promise<void> {
    const setId = await this.resolveSet()
    if (!record.claimKey) {
      record.claimKey = randomUUID()
      await this.journal.save(record)
    }
    const body = { holder: this.options.holder, ttlSeconds: this.options.claimTtlSeconds }
    let waitingSaid = false
    for (;;) {
      const context = { context: { idempotencyKey: record.claimKey } }
      let claimed: { id: string } | null
      try {
        claimed = await this.untilAnswered('claim', () =>
          record.named
            ? this.client.booth.claim({ params: { sessionId: record.named }, body }, context)
            : this.client.booth.claimNext({ params: { setId }, body }, context).then((answer) => answer.session),
        )
      } catch (error) {
        if (record.named && isApiError(error) && SESSION_GONE.has(error.status)) {
          return this.fail(record, `the session its files name cannot take photos: ${error.message}`)
        }
        if (isApiError(error) && error.status === 404) throw new RefusedError(`the service has no set ${this.options.set}`)
        this.refused(error)
      }
      if (claimed) {
        this.log.conceal(claimed.id)
        record.sessionId = claimed.id
        record.claimedAt = Date.now()
        record.state = 'claimed'
        await this.journal.save(record)
        this.log.info(
          'session.claimed',
          `session ${record.number}: ${record.named ? 'its named session' : 'the next session of the queue'} is claimed`,
          {
            session: record.number,
          },
        )
        return
      }
      // Nobody registered yet: a new key, or the service would replay this empty answer.
      if (!waitingSaid)
        this.log.info('queue.empty', `session ${record.number}: waiting for the kiosk's next registration`, { session: record.number })
      waitingSaid = true
      record.claimKey = randomUUID()
      await this.journal.save(record)
      await this.pause(this.options.pollMs ?? 3000)
      if (this.stopping.signal.aborted) return
    }
  }

  private async upload(record: SessionRecord): Promise<void> {
    const sessionId = record.sessionId!
    if (record.cancel) {
      await this.untilAnswered('cancel', () =>
        this.client.booth.cancel({ params: { sessionId } }, { context: { idempotencyKey: `${record.claimKey}-cancel` } }),
      ).catch((error: unknown) => {
        if (!(isApiError(error) && SESSION_GONE.has(error.status))) this.refused(error)
      })
      record.state = 'cancelled'
      await this.journal.save(record)
      this.log.info('session.cancelled', `session ${record.number}: its guests' session is cancelled (the booth abandoned it)`, {
        session: record.number,
      })
      return
    }
    // A claim that may have lapsed (a long outage since) is renewed first: another booth may have taken it.
    if (Date.now() - (record.claimedAt ?? 0) > (this.options.claimTtlSeconds * 1000) / 2 && !(await this.renew(record))) return
    record.state = 'uploading'
    await this.journal.save(record)
    await this.enqueue(record)
  }

  private async enqueue(record: SessionRecord): Promise<void> {
    const photos = await Promise.all(record.photos.map((photo) => openAsBlob(photo.copy, { type: 'image/jpeg' })))
    this.uploadStarted.set(record.number, Date.now())
    const bytes = record.photos.reduce((sum, photo) => sum + photo.size, 0)
    this.log.info('upload.queued', `session ${record.number}: uploading ${photos.length} photos (${megabytes(bytes)})`, {
      session: record.number,
      photos: photos.length,
      bytes,
    })
    try {
      await this.queue.uploadPhotos(record.sessionId!, photos)
    } catch (error) {
      // Refused at once (sent then): the same as a refusal that comes later as an event.
      await this.refusedUpload(record, error)
    }
  }

  /** After a restart: an upload the SDK's queue still holds goes on by itself; one it no longer holds was sent, or never queued. */
  private async resumeUpload(record: SessionRecord): Promise<void> {
    if (this.queue.list().some((call) => call.sessionId === record.sessionId)) {
      this.uploadStarted.set(record.number, Date.now())
      return
    }
    // Renewing the claim tells which: a session no longer active was completed by the upload the queue finished.
    const renewed = await this.renew(record, { completedIfGone: true })
    if (!renewed) return
    await this.enqueue(record)
  }

  /** Claims the record's session again for this booth; when it cannot, its photos go to another session (or, gone after an upload, it was completed). */
  private async renew(record: SessionRecord, options: { completedIfGone?: boolean } = {}): Promise<boolean> {
    try {
      await this.untilAnswered('renew', () =>
        this.client.booth.claim({
          params: { sessionId: record.sessionId! },
          body: { holder: this.options.holder, ttlSeconds: this.options.claimTtlSeconds },
        }),
      )
      record.claimedAt = Date.now()
      await this.journal.save(record)
      return true
    } catch (error) {
      if (!(isApiError(error) && SESSION_GONE.has(error.status))) this.refused(error)
      if (options.completedIfGone && (error.data as { code?: string } | undefined)?.code === 'session_not_active') {
        await this.delivered(record, undefined)
        return false
      }
      await this.reclaim(record, error.message)
      return false
    }
  }

  /** The session went (cancelled by staff, taken by another booth): the group's photos go to the next one. */
  private async reclaim(record: SessionRecord, why: string): Promise<void> {
    const claims = (record.claims ?? 1) + 1
    if (claims > MAX_CLAIMS || record.named) return this.fail(record, `its session could not take the photos: ${why}`)
    Object.assign(record, { claims, state: 'closed', claimKey: randomUUID() })
    delete record.sessionId
    await this.journal.save(record)
    this.uploadStarted.delete(record.number)
    this.log.warn('session.reclaim', `session ${record.number}: its guests' session went (${why}); taking the next one`, {
      session: record.number,
    })
    this.wakeUp?.()
  }

  private recordOf(sessionId: string | undefined): SessionRecord | undefined {
    return this.records.find((record) => record.sessionId === sessionId && record.state === 'uploading')
  }

  private async onSent(event: QueueEvents['sent']): Promise<void> {
    if (event.route !== 'booth.uploadPhotos') return
    const record = this.recordOf(event.call.sessionId)
    if (record) await this.delivered(record, event.result.galleryUrl)
  }

  private async onFailed(event: QueueEvents['failed']): Promise<void> {
    const record = this.recordOf(event.call.sessionId)
    if (record) await this.refusedUpload(record, event.error)
  }

  private async refusedUpload(record: SessionRecord, error: unknown): Promise<void> {
    if (isApiError(error) && error.status === 401) {
      this.fault('the service refused the booth key (unknown or revoked)')
      return
    }
    if (
      isApiError(error) &&
      SESSION_GONE.has(error.status) &&
      error.data &&
      (error.data as { storageCode?: string }).storageCode === undefined
    ) {
      return this.reclaim(record, error.message)
    }
    await this.fail(record, `the service refused its upload: ${describe(error)}`)
  }

  private onProgress({ call, uploaded, total, bytes }: QueueEvents['progress']): void {
    const record = this.recordOf(call.sessionId)
    if (!record) return
    const seconds = Math.max(0.001, (Date.now() - (this.uploadStarted.get(record.number) ?? Date.now())) / 1000)
    this.log.info(
      'upload.progress',
      `session ${record.number}: photos ${uploaded}/${total} uploaded (${megabytes(bytes)}, ${megabytes(bytes / seconds)}/s)`,
      {
        session: record.number,
        uploaded,
        total,
        bytes,
      },
    )
  }

  private async delivered(record: SessionRecord, galleryUrl: string | undefined): Promise<void> {
    record.state = 'completed'
    if (galleryUrl) record.galleryUrl = galleryUrl
    await this.journal.save(record)
    this.status.completed++
    this.uploadStarted.delete(record.number)
    this.log.info(
      'session.completed',
      `session ${record.number}: completed with ${record.photos.length} photos; the guests' gallery links are on their way`,
      {
        session: record.number,
        photos: record.photos.length,
      },
    )
    await this.journal.dropCopies(record)
    await this.options
      .onDelivered?.(record)
      .catch((error: unknown) => this.fault(`session ${record.number}: after delivery: ${describe(error)}`))
    if (galleryUrl) {
      const qr = await showLink(this.options.state, galleryUrl)
      if (this.options.showQr) process.stdout.write(`${qr}\n`)
    }
    await this.writeStatus()
  }

  private async fail(record: SessionRecord, reason: string): Promise<void> {
    record.state = 'failed'
    record.reason = reason
    await this.journal.save(record)
    this.status.failed++
    this.uploadStarted.delete(record.number)
    for (const photo of record.photos) await this.setAside(photo.original, `session ${record.number}: ${reason}`, photo.size, photo.mtimeMs)
    this.log.error('session.failed', `session ${record.number}: ${reason}`, { session: record.number })
  }

  private fault(text: string): void {
    this.status.lastError = { at: Date.now(), text }
    this.log.error('fault', text)
  }

  /** What `status` reads: how much waits, and the last trouble. */
  private async writeStatus(): Promise<void> {
    const count = (...states: SessionRecord['state'][]) => this.records.filter((record) => states.includes(record.state)).length
    const status = {
      pid: process.pid,
      mode: this.options.mode,
      startedAt: this.status.startedAt,
      updatedAt: Date.now(),
      service: this.away ? 'away' : 'up',
      queueDepth: this.queue.count,
      open: count('open'),
      waiting: count('closed', 'claimed', 'uploading'),
      completed: count('completed'),
      failed: count('failed'),
      setAside: this.status.setAside,
      lastError: this.status.lastError ?? null,
    }
    await mkdir(this.options.state, { recursive: true })
    await writeFile(join(this.options.state, 'status.json'), `${JSON.stringify(status, null, 1)}\n`).catch(() => undefined)
  }
}

const takenKey = (path: string, size: number, mtimeMs: number) => `${path}\0${size}\0${Math.floor(mtimeMs)}`
