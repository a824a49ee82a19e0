import { createHash, randomInt } from 'node:crypto'
import { isIP } from 'node:net'

import type { Request, RequestHandler } from 'express'
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit'
import proxyaddr from 'proxy-addr'
import type { RedisReply, SendCommandFn } from 'rate-limit-redis'

import { errorBody, sendError } from '../../http/answers.js'
import { describeError, type Logger } from '../../logger.js'
import type { Metrics } from '../../metrics.js'
import { withTimeout } from '../../timeouts.js'

export const TOO_MANY_REQUESTS = errorBody('rate_limited', 'Too many requests. Try again in a minute.')

export type RateLimitSettings = {
  /** One minute in production; tests shorten it rather than wait. */
  windowMs: number
  /** The edge proxy's client-IP header (e.g. `cf-connecting-ip`); unset: the connecting address. */
  clientIpHeader?: string
  /**
   * The connecting addresses whose `clientIpHeader` is believed (`TRUSTED_PROXIES`: addresses, CIDR
   * ranges, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`); absent: loopback only.
   */
  trustedProxies?: readonly string[]
}

/** Each list's trust function, compiled once (proxy-addr: Express's own "trust proxy"). */
const compiled = new WeakMap<readonly string[], (address: string) => boolean>()
const LOOPBACK = ['loopback'] as const

function trusts(list: readonly string[] = LOOPBACK): (address: string) => boolean {
  let trust = compiled.get(list)
  if (!trust) {
    const check = proxyaddr.compile([...list])
    trust = (address) => check(address, 0)
    compiled.set(list, trust)
  }
  return trust
}

/**
 * The client a limit counts: the edge's client-IP header when it holds an IP and the connection
 * comes from a trusted proxy (anyone else could write any value in it, and escape every limit),
 * else the connecting address; IPv6 masked to a /56, as one subscriber gets (express-rate-limit's
 * `ipKeyGenerator`).
 */
export function clientKey(req: Request, settings: Pick<RateLimitSettings, 'clientIpHeader' | 'trustedProxies'>): string {
  const peer = req.socket.remoteAddress ?? 'unknown'
  const forwarded = settings.clientIpHeader ? req.headers[settings.clientIpHeader.toLowerCase()] : undefined
  const candidate = typeof forwarded === 'string' ? forwarded.trim() : undefined
  const ip = candidate && isIP(candidate) && isIP(peer) && trusts(settings.trustedProxies)(peer) ? candidate : peer
  return ipKeyGenerator(ip)
}

/**
 * A limiter per route, each with its own count: in memory (per instance: the limit is "per edge
 * location"), or in Redis when one count across instances is wanted. The 429 carries the documented
 * body and no Retry-After or RateLimit headers.
 */
export function createRateLimiter(
  settings: RateLimitSettings,
  shared: SharedCounts | undefined,
  metrics: Pick<Metrics, 'rateLimited' | 'rateLimitUnchecked'>,
) {
  return (name: string, limit: number): RequestHandler => {
    const store = shared?.store(name)
    // Its refusals' series starts at zero, so that an alert sees it on a fresh instance.
    metrics.rateLimited.inc({ limit: name }, 0)
    if (store) metrics.rateLimitUnchecked.inc({ limit: name }, 0)
    return rateLimit({
      windowMs: settings.windowMs,
      limit,
      standardHeaders: false,
      legacyHeaders: false,
      keyGenerator: (req) => clientKey(req, settings),
      handler: (_req, res) => {
        metrics.rateLimited.inc({ limit: name })
        sendError(res, 429, TOO_MANY_REQUESTS)
      },
      ...(store
        ? {
            store,
            // Redis failed or did not answer within REDIS_TIMEOUT_MS: the request goes on uncounted (the
            // limits are "a light lock, not flood protection"), and the count says how many did.
            passOnStoreError: true,
            logger: {
              error: () => {
                metrics.rateLimitUnchecked.inc({ limit: name })
                shared?.failed()
              },
              warn: () => {},
            },
          }
        : {}),
      // The key generator masks IPv6 itself; the library's start-up checks only warn about it.
      validate: { keyGeneratorIpFallback: false },
    })
  }
}

/** Counts shared across instances: a limit's store by its name, and what to do when one fails. */
export type SharedCounts = { store: (name: string) => Store; failed: () => void }

export type RedisCounts = SharedCounts & {
  /** Whether Redis is connected now (the `photobooth_dependency_up` gauge). */
  isUp: () => boolean
  close: () => Promise<void>
}

/** How often an idle connection to Redis is pinged. */
const PING_MS = 5_000

/** Reconnection: doubling from 100 ms up to 5 s, with jitter, for as long as Redis stays away. */
const RECONNECT_MS = { first: 100, max: 5_000 }

/**
 * Counts in Redis, when `REDIS_URL` is set (the client and its store are loaded only then: most
 * instances count in memory). Redis is optional at run time: the instance starts without waiting
 * for it, a command fails at once while it is away and after `timeoutMs` while it stalls, the limits
 * then let requests through (`passOnStoreError`), and the client reconnects by itself. One warning
 * when it goes, one line when it is back; every failure is counted.
 */
export async function connectRedisCounts(
  settings: { url: string; timeoutMs: number },
  deps: { logger: Logger; metrics: Pick<Metrics, 'dependencyErrors'> },
): Promise<RedisCounts> {
  const [{ createClient }, { RedisStore }] = await Promise.all([import('redis'), import('rate-limit-redis')])
  const { logger, metrics } = deps
  const client = createClient({
    url: settings.url,
    // While disconnected a command fails at once rather than waiting in a queue for the reconnection.
    disableOfflineQueue: true,
    // A PING now and then, so that a connection that hears nothing (a stall, a partition) is known for
    // dead after `socketTimeout` and made again; a healthy one always hears its PONG.
    pingInterval: PING_MS,
    socket: {
      socketTimeout: 3 * PING_MS,
      connectTimeout: Math.max(1_000, settings.timeoutMs),
      reconnectStrategy: (retries) => Math.min(RECONNECT_MS.first * 2 ** retries, RECONNECT_MS.max) + randomInt(0, RECONNECT_MS.first),
    },
  })
  let away = false
  const failed = (error?: unknown) => {
    metrics.dependencyErrors.inc({ dependency: 'redis' })
    if (away) return
    away = true
    logger.warn(
      'Redis is unavailable: rate limits let requests through uncounted until it is back',
      error === undefined ? {} : { error: describeError(error) },
    )
  }
  const answered = () => {
    if (!away) return
    away = false
    logger.info('Redis is back: rate limits count in it again')
  }
  // Without a listener, an 'error' event would end the process.
  client.on('error', failed)
  client.on('ready', answered)
  // Not awaited: the instance serves (uncounted) until Redis answers. Failures come as 'error' events.
  client.connect().catch(() => {})
  // The client's own command timeout ends only the wait to be written: a command written to a stalled
  // connection would wait for its reply for ever.
  const send = (args: string[]) => withTimeout(client.sendCommand<RedisReply>(args), settings.timeoutMs)
  const sendCommand: SendCommandFn = async (...args) => {
    // The store loads its scripts once, when a limit is created: a load that fails while Redis is away
    // would leave it without them for good. Their SHA-1 is the script's own, so it stands in for the
    // answer, and the first EVALSHA once Redis is back meets NOSCRIPT, on which the store loads it.
    if (args[0] === 'SCRIPT' && args[1] === 'LOAD') {
      return send(args).catch(() => createHash('sha1').update(args[2]!).digest('hex'))
    }
    const reply = await send(args)
    // A stall ends without a reconnection: the first answer says Redis is back.
    answered()
    return reply
  }
  return {
    store: (name) => new RedisStore({ prefix: `photobooth:rate:${name}:`, sendCommand }),
    failed,
    isUp: () => client.isReady,
    // Commands in flight get a moment to finish; a client that is not connected, or stalled, is dropped.
    close: async () => (client.isReady ? withTimeout(client.close(), settings.timeoutMs).catch(() => client.destroy()) : client.destroy()),
  }
}
