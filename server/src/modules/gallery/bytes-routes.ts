import { once } from 'node:events'
import type { ServerResponse } from 'node:http'

import { contract } from '@photobooth/sdk/contract'
import { PathKey } from '@photobooth/sdk/schemas'
import { Router, type Request, type RequestHandler } from 'express'

import type { Services } from '../../context.js'
import { AppError, encodeErrorBody } from '../../errors.js'
import { sendError, sendPlain } from '../../http/answers.js'
import { expressPath, passEventPageNamedZip } from '../../http/edge.js'
import { downloadPhoto, downloadZip, type BytesAnswer, type BytesBody, type FileDeps } from './gallery-files.service.js'

/**
 * The gallery's files (contract: `galleryFiles`), answered by Express straight from Node streams: a
 * gigabyte zip through oRPC's web stream conversion cost a third of its throughput
 * (bench/README.md). Their rate limits are mounted before them from the contract (http/edge.ts).
 */
export function galleryFileRoutes(services: Pick<Services, 'orm' | 'storage' | 'now' | 'logger' | 'metrics' | 'imageLimit'>): Router {
  // A segment that cannot be a key names nothing: the plain 404, as for any unknown id.
  const idOf = (value: unknown) => (PathKey.safeParse(value).success ? (value as string) : '')
  const router = Router()
  passEventPageNamedZip(router)
  router.get(
    expressPath(contract.gallery.downloadPhoto),
    bytesRoute((req, deps) => downloadPhoto(deps, { sessionId: idOf(req.params.sessionId), photoId: idOf(req.params.photoId) }), services),
  )
  router.get(
    expressPath(contract.gallery.downloadZip),
    bytesRoute(
      (req, deps) => downloadZip(deps, { sessionId: idOf(req.params.sessionId) }),
      services,
      (chunk) => services.metrics.zipBytes.inc(chunk.length),
    ),
  )
  return router
}

/** Not found is the bare plain-text `Not Found` (documented); a fault after the answer started is logged. */
function bytesRoute(
  answer: (req: Request, deps: FileDeps) => Promise<BytesAnswer>,
  services: Pick<Services, 'orm' | 'storage' | 'now' | 'logger' | 'imageLimit'>,
  /** Told of each chunk the socket has taken (the zip's bytes metric). */
  streamed: (chunk: Buffer) => void = () => {},
): RequestHandler {
  const onError = (error: unknown) => services.logger.error('response failed after it started', error)
  return async (req, res, next) => {
    const abort = new AbortController()
    res.once('close', () => abort.abort())
    let headers: Record<string, string>
    let bytes: BytesBody
    let first: IteratorResult<Buffer>
    let rest: AsyncIterator<Buffer>
    try {
      const answered = await answer(req, {
        em: services.orm.em.fork(),
        storage: services.storage,
        now: services.now,
        imageLimit: services.imageLimit,
        signal: abort.signal,
        onError,
      })
      headers = answered.headers
      // A HEAD (a download manager sizing the file) reads nothing and is not a download.
      if (req.method === 'HEAD') return void res.writeHead(200, headers).end()
      bytes = await answered.open()
      // The first bytes before the status: a zip whose first photo cannot be read (storage away) is
      // answered as the failure it is, not as a 200 cut short.
      rest = bytes.body[Symbol.asyncIterator]()
      first = await rest.next()
    } catch (error) {
      if (!(error instanceof AppError)) return next(error)
      if (error.status === 404) return sendPlain(res, 404)
      // Anything else the domain answers (503: no storage configured) in the `{ error }` shape.
      return sendError(res, error.status, encodeErrorBody(error))
    }
    res.writeHead(200, headers)
    // A client that goes away ends the sending; the sources are closed by the abort signal.
    const sent = bytes.sent
    await sendChunks(resumed(first, rest), res, (chunk) => (sent?.(chunk), streamed(chunk)), abort.signal).catch(() => {})
  }
}

/** The chunks of a body whose first was already read. */
async function* resumed(first: IteratorResult<Buffer>, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  try {
    for (let next = first; !next.done; next = await rest.next()) yield next.value
  } finally {
    await rest.return?.()
  }
}

/** Sends `body` with backpressure, telling `sent` of each chunk once the socket has taken it. */
export async function sendChunks(
  body: AsyncIterable<Buffer>,
  res: ServerResponse,
  sent: (chunk: Buffer) => void,
  signal: AbortSignal,
): Promise<void> {
  try {
    for await (const chunk of body) {
      if (!res.write(chunk, () => sent(chunk))) await once(res, 'drain', { signal })
    }
    res.end()
  } catch (error) {
    res.destroy()
    throw error
  }
}
