import { once } from 'node:events'
import type { ServerResponse } from 'node:http'

import type { Request, RequestHandler } from 'express'

import { AppError, encodeErrorBody } from '../../errors.js'
import type { BytesAnswer, BytesBody, FileDeps } from './gallery-files.service.js'

/**
 * A byte route answered by Express straight from Node streams: a gigabyte zip through oRPC's web
 * stream conversion cost a third of its throughput (bench/README.md). The contract still declares
 * the route for the document and the SDK. Not found is the spec's bare plain-text `Not Found`.
 */
export function bytesRoute(
  answer: (req: Request, deps: FileDeps) => Promise<BytesAnswer>,
  deps: () => Omit<FileDeps, 'signal'>,
): RequestHandler {
  return async (req, res, next) => {
    const abort = new AbortController()
    res.once('close', () => abort.abort())
    let headers: Record<string, string>
    let bytes: BytesBody
    try {
      const answered = await answer(req, { ...deps(), signal: abort.signal })
      headers = answered.headers
      // A HEAD (a download manager sizing the file) reads nothing and is not a download.
      if (req.method === 'HEAD') return void res.writeHead(200, headers).end()
      bytes = await answered.open()
    } catch (error) {
      if (!(error instanceof AppError)) return next(error)
      if (error.code === 'NOT_FOUND') return void res.status(404).type('text/plain').send('Not Found')
      // Anything else the domain answers (503: no storage configured) in the spec's `{ error }`.
      return void res.status(error.status).json(encodeErrorBody(error))
    }
    res.writeHead(200, headers)
    // A client that goes away ends the sending; the sources are closed by the abort signal.
    await sendChunks(bytes.body, res, bytes.sent ?? (() => {}), abort.signal).catch(() => {})
  }
}

/** Sends `body` with backpressure, telling `sent` of each chunk once the socket has taken it. */
export async function sendChunks(body: AsyncIterable<Buffer>, res: ServerResponse, sent: (chunk: Buffer) => void, signal: AbortSignal): Promise<void> {
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
