import { contract } from '@photobooth/sdk/contract'
import { Router, type Request, type Response, type NextFunction } from 'express'
import type { z } from 'zod'

import type { AppContext, Services } from '../../context.js'
import { AppError, encodeErrorBody } from '../../errors.js'
import { sendError, sendInvalid } from '../../http/answers.js'
import { expressPath } from '../../http/edge.js'
import {
  answeredNotModified,
  GALLERY_CACHE_CONTROL,
  GALLERY_KEY,
  readEventPageVersion,
  readGalleryVersion,
  type VersionCache,
} from './gallery-versions.js'
import { jsonTag, readEventPage, readGallery } from './gallery.service.js'

type Version = readonly (string | number)[] | undefined
type Found = { body: unknown; etag: string; cacheControl?: string }
type Procedure = { '~orpc': { inputSchema?: z.ZodType; route: { path?: string } } }

/**
 * The two gallery reads (contract: `gallery.getEventPage`, `gallery.getGallery`), answered by
 * Express, the whole operation: their input validated by the contract's schema, `If-None-Match`
 * answered 304 from one small query without building the body, the JSON written as it is, and a
 * refusal (`no such gallery`, `invalid_cursor`, a schema failure) written by the one error writer in
 * the shape oRPC gives every other route. Not oRPC's handler: its serializer walks every object of an
 * answer already made of plain JSON (an event page holds 2,400 photos and 7,200 copies: the walk was
 * a third of its cost, bench/README.md `gallery`), and a procedure cannot answer a 304. A database
 * that is away, or a fault, goes to the app's last resort (503 with Retry-After, or 500, logged).
 */
export function galleryReads({ orm, config }: Pick<Services, 'orm' | 'config'>, versions: VersionCache): Router {
  const answer =
    <Input extends Record<string, unknown>>(
      procedure: Procedure,
      key: keyof Input & string,
      readVersion: (context: Pick<AppContext, 'em'>, key: string) => Promise<Version>,
      read: (context: Pick<AppContext, 'em' | 'config'>, input: Input) => Promise<Found>,
    ) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const query = req.query
      const plain = Object.keys(query).length === 0 && GALLERY_KEY.test(String(req.params[key]))
      // As oRPC reads a GET's input: the query's fields, then the path's over them. A plain key with
      // no query (every guest's and the CDN's request) is one the schema takes as it is: not parsed again.
      const parsed = plain ? undefined : procedure['~orpc'].inputSchema!.safeParse({ ...query, ...req.params })
      if (parsed && !parsed.success) return sendInvalid(res, parsed.error.issues)
      const input = (parsed ? parsed.data : req.params) as Input
      const value = String(input[key])
      try {
        // A set's next page (`?cursor=`) is another answer than the page's version tags.
        if (plain) {
          const version = () => versions.read(`${key}:${value}`, () => readVersion({ em: orm.em.fork() }, value))
          if (await answeredNotModified(req, res, { version, tag: (current) => jsonTag(config, current) })) return
        }
        const found = await read({ em: orm.em.fork(), config }, input)
        const body = JSON.stringify(found.body)
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          etag: found.etag,
          'cache-control': found.cacheControl ?? GALLERY_CACHE_CONTROL,
        })
        res.end(body)
      } catch (error) {
        if (error instanceof AppError) return sendError(res, error.status, encodeErrorBody(error))
        next(error)
      }
    }
  const router = Router()
  router.get(
    expressPath(contract.gallery.getEventPage),
    answer<{ slug: string; cursor?: string }>(contract.gallery.getEventPage, 'slug', readEventPageVersion, (context, input) =>
      readEventPage(context, input),
    ),
  )
  router.get(
    expressPath(contract.gallery.getGallery),
    answer<{ sessionId: string }>(contract.gallery.getGallery, 'sessionId', readGalleryVersion, (context, input) =>
      readGallery(context, input),
    ),
  )
  return router
}
