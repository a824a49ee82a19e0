import type { ClientPromiseResult } from '@orpc/client'

import { ApiError, decodeErrorBody } from './errors.js'
import type { PhotoBoothClient, RouteError } from './index.js'
import { transportOf } from './registry.js'
import { send, type Transport } from './transport.js'
import { resolveRetry, type RetryOptions } from './retry.js'

/** A JPEG's bytes: a `Blob`/`File`, a `Uint8Array` (a Node `Buffer` is one), or a stream of them. */
export type PhotoSource = Blob | Uint8Array | ReadableStream<Uint8Array>

export type UploadOptions = {
  signal?: AbortSignal
  /** Each PUT's timeout in ms. Default 60000. */
  timeoutMs?: number
  /** Retries of each PUT (network errors, timeouts, storage 5xx), over the client's; `false` for none. */
  retry?: RetryOptions | false
  /** PUTs at once. Default 3. */
  concurrency?: number
  /** Called as each photo is stored: how many are, of how many, and their bytes. */
  onUploaded?: (uploaded: number, total: number, bytes: number) => void
}

/** Storage's refusals of a PUT, typed: `data.storageCode` is S3's `<Code>`, `data.key` the photo's key. */
export type StorageErrorCode = 'BAD_REQUEST' | 'FORBIDDEN' | 'PRECONDITION_FAILED'
export type StorageError = ApiError<StorageErrorCode, { storageCode: string; key: string }>

type Booth = PhotoBoothClient['booth']
/** What `uploadPhotos` can throw: the two routes' errors, storage's, and the transport's. */
export type UploadError = RouteError<Booth['createUploads']> | RouteError<Booth['complete']> | StorageError
export type CompletedSession = Awaited<ReturnType<Booth['complete']>>

/** What a storage PUT may answer: 403 `SignatureDoesNotMatch`/`AccessDenied`, 412 `PreconditionFailed`, 400 `EntityTooLarge`. */
const STORAGE_ERRORS = { BAD_REQUEST: { status: 400 }, FORBIDDEN: { status: 403 }, PRECONDITION_FAILED: { status: 412 } } as const

const EXPLAINED: Record<string, string> = {
  SignatureDoesNotMatch:
    'Storage refused the upload signature (SignatureDoesNotMatch): the PUT must carry exactly the signed headers, and a Content-Type other than image/jpeg is the usual cause',
  AccessDenied: 'Storage refused the upload (AccessDenied): the URL expired, or the session is no longer active',
  PreconditionFailed: 'Storage already holds a photo under this key (PreconditionFailed): an upload URL creates its photo once',
  EntityTooLarge: 'Storage refused the photo as too large (EntityTooLarge)',
}

export async function toBlob(photo: PhotoSource): Promise<Blob> {
  if (photo instanceof Blob) return photo
  // A stream is read once, so that a failed PUT can be sent again and storage gets a Content-Length.
  if (photo instanceof ReadableStream) return new Response(photo).blob()
  // A Blob is made of bytes over an ArrayBuffer: bytes over a SharedArrayBuffer are copied first.
  const bytes = photo.buffer instanceof ArrayBuffer ? (photo as Uint8Array<ArrayBuffer>) : new Uint8Array(photo)
  return new Blob([bytes], { type: 'image/jpeg' })
}

/** S3's (and the local bucket's) XML error: `<Error><Code>…</Code><Message>…</Message></Error>`. */
function parseS3Error(text: string): { code: string; message: string | undefined } | undefined {
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1]
  if (code === undefined) return undefined
  const message = /<Message>([^<]*)<\/Message>/
    .exec(text)?.[1]
    ?.replace(/&#(\d+);|&(amp|lt|gt|quot|apos);/g, (_, n: string, name: string) =>
      n ? String.fromCharCode(Number(n)) : ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[name]!,
    )
  return { code, message }
}

async function storageError(response: Response, key: string): Promise<ApiError> {
  const text = await response.text()
  const s3 = parseS3Error(text)
  const error = decodeErrorBody(s3 ? (s3.message ?? s3.code) : text, response, STORAGE_ERRORS)
  const storageCode = s3?.code ?? `HTTP ${response.status}`
  const explained = EXPLAINED[storageCode]
  return new ApiError(error.code, {
    status: error.status,
    defined: error.defined,
    message: explained ? `${explained}. Storage said: ${error.message}` : error.message,
    data: { storageCode, key },
    requestId: response.headers.get('x-amz-request-id') ?? error.requestId,
    headers: response.headers,
  })
}

type UploadTarget = Awaited<ReturnType<PhotoBoothClient['booth']['createUploads']>>['uploads'][number]

/**
 * One photo's PUT with exactly its signed headers, retried on failures that may not have reached
 * storage. A 412 on a retry means an earlier try was stored; with `storedEarlier`, on any try (a
 * queued upload resumed after a restart puts the same target again).
 */
export async function putPhoto(
  transport: Transport,
  target: UploadTarget,
  blob: Blob,
  options: Pick<UploadOptions, 'signal' | 'timeoutMs' | 'retry'> & { storedEarlier?: boolean },
): Promise<void> {
  await send(transport, {
    url: transport.uploadUrl?.(target.url) ?? target.url,
    method: target.method,
    headers: new Headers(target.headers),
    body: () => blob,
    signal: options.signal,
    timeoutMs: options.timeoutMs ?? 60_000,
    // A large photo on a slow link takes what its tries take: no overall deadline.
    deadlineMs: 0,
    retry: options.retry === undefined ? undefined : resolveRetry(options.retry, transport.retry),
    repeatable: true,
    fail: async (response, attempt) =>
      (attempt > 0 || options.storedEarlier) && response.status === 412 ? undefined : storageError(response, target.key),
    read: async (response) => {
      await response.body?.cancel()
    },
  })
}

/**
 * A booth's whole upload: asks for one target per photo, PUTs each photo with exactly its signed
 * headers (retrying a failed PUT; a 412 on a retry means the earlier try was stored), then
 * completes the session with the keys in the photos' order, and answers the completed session.
 *
 * Throws the route's typed errors (`createUploads`, `complete`: 409, 422 with `data.missing`…),
 * a `StorageError` for storage's refusals, `NetworkError` or `TimeoutError`.
 */
export function uploadPhotos(
  client: Pick<PhotoBoothClient, 'booth'>,
  sessionId: string,
  photos: readonly PhotoSource[],
  options: UploadOptions = {},
): ClientPromiseResult<CompletedSession, UploadError> {
  return upload(client, sessionId, photos, options)
}

/**
 * Where a repeatable upload stands (the offline queue keeps it with the queued call): the key of
 * each photo stored so far, and which round of targets is current. Its keys are derived from
 * `idempotencyKey`, so a repeat after a restart gets the same targets and the same completion.
 */
export type UploadProgress = {
  idempotencyKey: string
  /** Per photo, its storage key once stored. */
  stored: (string | null)[]
  /** Bumped when storage refuses expired targets: the next round asks for new ones. */
  round: number
}

async function upload(
  client: Pick<PhotoBoothClient, 'booth'>,
  sessionId: string,
  photos: readonly PhotoSource[],
  options: UploadOptions,
  progress?: UploadProgress,
  saveProgress?: (progress: UploadProgress) => Promise<void>,
): Promise<CompletedSession> {
  const transport = transportOf(client)
  const { signal } = options
  const blobs = await Promise.all(photos.map(toBlob))
  const stored = progress?.stored ?? blobs.map(() => null)
  const missing = blobs.map((_, index) => index).filter((index) => stored[index] === null)
  const keyed = (suffix: string) => (progress ? { context: { idempotencyKey: `${progress.idempotencyKey}-${suffix}` } } : {})
  // A target per photo, stored or not: repeated with its key, the request is the same and so is the answer.
  const { uploads: targets } =
    missing.length > 0
      ? await client.booth.createUploads(
          { params: { sessionId }, body: { count: blobs.length } },
          { signal, ...keyed(`uploads-${progress?.round ?? 0}`) },
        )
      : { uploads: [] }
  const uploads = missing.map((index) => targets[index]!)
  let next = 0
  let failed: Error | undefined
  const worker = async () => {
    while (failed === undefined && next < uploads.length) {
      const index = next++
      const target = uploads[index]!
      try {
        await putPhoto(transport, target, blobs[missing[index]!]!, { ...options, storedEarlier: progress !== undefined })
        stored[missing[index]!] = target.key
        if (progress) await saveProgress?.(progress)
        const done = blobs.filter((_, each) => stored[each] !== null)
        options.onUploaded?.(
          done.length,
          blobs.length,
          done.reduce((sum, blob) => sum + blob.size, 0),
        )
      } catch (error) {
        failed ??= error as Error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 3, uploads.length)) }, worker))
  if (failed !== undefined) {
    // Targets signed before a long outage have expired: the next try asks for new ones.
    if (progress && failed instanceof ApiError && failed.status === 403) {
      progress.round++
      await saveProgress?.(progress)
    }
    throw failed
  }
  return client.booth.complete({ params: { sessionId }, body: { photos: stored.map((key) => key!) } }, { signal, ...keyed('complete') })
}

/** `uploadPhotos` that can be repeated after a restart from its saved progress (the offline queue's). */
export async function resumeUpload(
  client: Pick<PhotoBoothClient, 'booth'>,
  sessionId: string,
  photos: readonly PhotoSource[],
  progress: UploadProgress,
  saveProgress: (progress: UploadProgress) => Promise<void>,
  options: UploadOptions = {},
): Promise<CompletedSession> {
  const round = progress.round
  try {
    return await upload(client, sessionId, photos, options, progress, saveProgress)
  } catch (error) {
    if (progress.round === round) throw error
    // Storage refused targets that had expired: once more, with new ones.
    return upload(client, sessionId, photos, options, progress, saveProgress)
  }
}
