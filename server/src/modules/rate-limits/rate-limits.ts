import { isIP } from 'node:net'

import type { Request, RequestHandler } from 'express'
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit'
import type { RedisClientType } from 'redis'

import { sendError } from '../../http/answers.js'
import type { Metrics } from '../../metrics.js'

export const TOO_MANY_REQUESTS = { error: 'Too many requests. Try again in a minute.' } as const

export type RateLimitSettings = {
  /** One minute in production; tests shorten it rather than wait. */
  windowMs: number
  /** The edge proxy's client-IP header (e.g. `cf-connecting-ip`); unset: the connecting address. */
  clientIpHeader?: string
}

/**
 * The client a limit counts: the edge's client-IP header when it holds an IP (IPv6 masked to a
 * /56, as one subscriber gets), else the connecting address.
 */
export function clientKey(req: Request, clientIpHeader: string | undefined): string {
  const forwarded = clientIpHeader ? req.headers[clientIpHeader.toLowerCase()] : undefined
  const candidate = typeof forwarded === 'string' ? forwarded.trim() : undefined
  const ip = candidate && isIP(candidate) ? candidate : (req.socket.remoteAddress ?? 'unknown')
  return ipKeyGenerator(ip)
}

/**
 * A limiter per route, each with its own count: in memory (per instance, the spec's "per edge
 * location"), or in Redis when one count across instances is wanted. The 429 carries the spec's
 * body and no Retry-After or RateLimit headers.
 */
export function createRateLimiter(settings: RateLimitSettings, sharedStore: SharedStore | undefined, metrics: Pick<Metrics, 'rateLimited'>) {
  return (name: string, limit: number): RequestHandler => {
    const store = sharedStore?.(name)
    // Its refusals' series starts at zero, so that an alert sees it on a fresh instance.
    metrics.rateLimited.inc({ limit: name }, 0)
    return rateLimit({
      windowMs: settings.windowMs,
      limit,
      standardHeaders: false,
      legacyHeaders: false,
      keyGenerator: (req) => clientKey(req, settings.clientIpHeader),
      handler: (_req, res) => {
        metrics.rateLimited.inc({ limit: name })
        sendError(res, 429, TOO_MANY_REQUESTS)
      },
      ...(store ? { store } : {}),
      // The key generator masks IPv6 itself; the library's start-up checks only warn about it.
      validate: { keyGeneratorIpFallback: false },
    })
  }
}

/** A limit's count shared across instances, by limit name. */
export type SharedStore = (name: string) => Store

/** Counts in Redis. Its store is loaded only when `REDIS_URL` is set: most instances count in memory. */
export async function redisStores(redis: RedisClientType): Promise<SharedStore> {
  const { RedisStore } = await import('rate-limit-redis')
  return (name) => new RedisStore({ prefix: `photobooth:rate:${name}:`, sendCommand: (...args: string[]) => redis.sendCommand(args) })
}
