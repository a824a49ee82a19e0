import type { MikroORM } from '@mikro-orm/postgresql'
import { OpenAPIHandler } from '@orpc/openapi/node'
import { onError, ORPCError } from '@orpc/server'
import { BodyLimitPlugin } from '@orpc/server/node'
import express, { type ErrorRequestHandler, type Express } from 'express'
import helmet from 'helmet'

import type { Config } from './config.js'
import { encodeErrorBody, INTERNAL_ERROR_BODY } from './errors.js'
import type { Logger } from './logger.js'
import { boothAuthentication } from './modules/booth-keys/booth-auth.middleware.js'
import type { Caller } from './modules/booth-keys/booth-keys.service.js'
import { photoBytesRoutes } from './modules/storage/photo-bytes.routes.js'
import type { PhotoStorage } from './modules/storage/storage.js'
import type { OpenApiDocument } from './openapi.js'
import { router } from './router.js'

/** JSON bodies of the public routes are small: 12 guests fit in a few kilobytes. */
export const MAX_BODY_BYTES = 64 * 1024

export type AppDependencies = {
  config: Config
  orm: MikroORM
  logger: Logger
  /** Built beforehand (it is async) so that the app itself is ready synchronously. */
  openApiDocument: OpenApiDocument
  storage?: PhotoStorage
  now?: () => Date
}

export function createApp({ config, orm, logger, openApiDocument, storage, now = () => new Date() }: AppDependencies): Express {
  // Served as committed, but pointing at this instance.
  const servedDocument = JSON.stringify({ ...openApiDocument, servers: [{ url: config.publicUrl }] })
  const handler = new OpenAPIHandler(router, {
    plugins: [new BodyLimitPlugin({ maxBodySize: MAX_BODY_BYTES })],
    customErrorResponseBodyEncoder: encodeErrorBody,
    interceptors: [answerOversizedBodiesAsBadRequests],
    clientInterceptors: [
      onError((error) => {
        if (isServerFault(error)) logger.error('procedure failed', error)
      }),
    ],
  })

  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  // First, so that every answer carries the security headers, Express's own 404s and 500s included.
  app.use(helmet())

  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(servedDocument)
  })

  app.use('/photos', photoBytesRoutes(config, storage, now))
  app.use('/booth', boothAuthentication(orm, now))

  app.use(async (req, res, next) => {
    try {
      const { matched } = await handler.handle(req, res, {
        context: { config, em: orm.em.fork(), now, storage, caller: res.locals.caller as Caller | undefined },
      })
      if (!matched) next()
    } catch (error) {
      next(error)
    }
  })

  app.use((_req, res) => {
    res.status(404).json({ error: 'Not Found' })
  })
  const lastResort: ErrorRequestHandler = (error, _req, res, _next) => {
    logger.error('unhandled error', error)
    if (res.headersSent) return void res.destroy()
    res.status(500).json(INTERNAL_ERROR_BODY)
  }
  app.use(lastResort)
  return app
}

/** Only the contact form answers 413 (spec, section 7); elsewhere an oversized body is bad input. */
const answerOversizedBodiesAsBadRequests = async <T>({ next }: { next: () => Promise<T> }): Promise<T> => {
  try {
    return await next()
  } catch (error) {
    if (error instanceof ORPCError && error.code === 'PAYLOAD_TOO_LARGE') {
      throw new ORPCError('BAD_REQUEST', { message: `Request body too large: at most ${MAX_BODY_BYTES} bytes`, cause: error })
    }
    throw error
  }
}

function isServerFault(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status !== 'number' || status >= 500
}
