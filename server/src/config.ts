import { randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

import proxyaddr from 'proxy-addr'
import { z } from 'zod'

import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './db/timeouts.js'
import type { RowChecks } from './db/query.js'
import { LOG_LEVELS, type LogLevel } from './logger.js'
import type { ContactFormSource } from './modules/contact/index.js'
import type { CopiesWorkerSettings } from './modules/photos/index.js'
import type { DispatcherSettings, PostmarkSettings, TwilioSettings } from './modules/messages/index.js'
import type { RateLimitSettings } from './modules/rate-limits/index.js'

/** The delivery dispatcher's defaults (its settings' meanings are on DispatcherSettings). */
export const DEFAULT_DISPATCHER_SETTINGS: Required<DispatcherSettings> = {
  senderName: null,
  intervalMs: 2_000,
  batchSize: 500,
  retryForMs: 24 * 3_600_000,
  baseDelayMs: 5_000,
  maxDelayMs: 5 * 60_000,
  leaseMs: 60_000,
  concurrency: 16,
  perSecond: {},
  providerBatch: 500,
  throttleMs: 1_000,
}

/**
 * The photo copies worker's defaults (CopiesWorkerSettings). One photo per core: sharp decodes and
 * encodes each on one libvips thread here (glibc without jemalloc), so the cores are used by photos
 * side by side, and each holds only its upload and a 1600 px frame.
 */
export const DEFAULT_COPIES_SETTINGS: CopiesWorkerSettings = {
  concurrency: Math.min(availableParallelism(), 16),
  intervalMs: 2_000,
  leaseMs: 60_000,
  maxAttempts: 5,
  baseDelayMs: 2_000,
}

/** A comma-separated list of origins (scheme, host, port: no path), e.g. `https://photos.example.com`. */
const originList = (example: string) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .refine(
      (origins) => origins.every((origin) => URL.canParse(origin) && new URL(origin).origin === origin),
      `a comma-separated list of origins such as ${example}`,
    )
    .optional()

/** Where the service serves the guest's pages: the default `GALLERY_URL` is `PUBLIC_URL` + this. */
export const GALLERY_PAGES_PATH = '/g'

/** Where the service serves the kiosk app (apps/kiosk): `/kiosk/<event slug>/<set slug>`, the default `KIOSK_URL`. */
export const KIOSK_APP_PATH = '/kiosk'

const optionalUrl = z
  .url()
  .transform((url) => url.replace(/\/+$/, ''))
  .optional()

/** The mode: `MODE`, else production when `NODE_ENV=production` (what hosts and images set), else development. */
const modeOf = (env: { MODE?: 'development' | 'production'; NODE_ENV?: string }) =>
  env.MODE ?? (env.NODE_ENV === 'production' ? 'production' : 'development')

const Environment = z
  .object({
    MODE: z.enum(['development', 'production']).optional(),
    // Read only to agree with MODE: a host that sets NODE_ENV=production alone means production.
    NODE_ENV: z.string().optional(),
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    DATABASE_URL: z.url().optional(),
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_DATABASE_TIMEOUTS.connectMs),
    DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_DATABASE_TIMEOUTS.acquireMs),
    DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_DATABASE_TIMEOUTS.statementMs),
    ROW_CHECKS: z.enum(['every', 'first']).optional(),
    DATA_DIR: z.string().min(1).default('.data'),
    EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
    PUBLIC_URL: optionalUrl,
    CDN_URL: optionalUrl,
    CDN_PURGE_URL: optionalUrl,
    GALLERY_URL: optionalUrl,
    KIOSK_URL: z
      .string()
      .refine(
        (value) => value.includes('{event}') && value.includes('{set}') && URL.canParse(value.replace(/\{(event|set)\}/g, 'x')),
        'a URL with {event} and {set} in it',
      )
      .optional(),
    AUTH_SECRET: z.string().min(32, 'at least 32 characters').optional(),
    TRUSTED_ORIGINS: originList('https://dashboard.example.com'),
    CORS_ORIGINS: originList('https://photos.example.com'),
    SEED_DEMO: z.enum(['true', 'false']).optional(),
    MIGRATE_ON_START: z.enum(['true', 'false']).default('true'),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ENDPOINT: z.url().optional(),
    S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
    LOCAL_UPLOAD_SECRET: z.string().min(32).optional(),
    DELIVERY: z.enum(['on', 'off']).default('on'),
    DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(DEFAULT_DISPATCHER_SETTINGS.concurrency),
    DELIVERY_EMAIL_PER_SECOND: z.coerce.number().positive().optional(),
    DELIVERY_SMS_PER_SECOND: z.coerce.number().positive().optional(),
    DELIVERY_RETRY_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 30)
      .default(DEFAULT_DISPATCHER_SETTINGS.retryForMs / 3_600_000),
    DELIVERY_EMAIL_BATCH: z.coerce.number().int().min(1).max(500).default(DEFAULT_DISPATCHER_SETTINGS.providerBatch),
    SMS_SENDER_NAME: z.string().trim().min(1).max(40).optional(),
    COPIES: z.enum(['on', 'off']).default('on'),
    COPIES_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(DEFAULT_COPIES_SETTINGS.concurrency),
    COPIES_LINK_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
    RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
    PURGE: z.enum(['on', 'off']).default('on'),
    PURGE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
    RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(100).default(60_000),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).optional(),
    CLIENT_IP_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'a header name')
      .optional(),
    TRUSTED_PROXIES: z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean),
      )
      .superRefine((list, ctx) => {
        try {
          // As the rate limiter reads it (modules/rate-limits): a list it cannot read stops the start.
          proxyaddr.compile(list)
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `addresses, CIDR ranges or loopback/linklocal/uniquelocal: ${(error as Error).message}` })
        }
      })
      .optional(),
    REQUEST_ID_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'a header name')
      .default('X-Request-Id'),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
    REDIS_URL: z.url().optional(),
    REDIS_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(250),
    CONTACT_TO: z.email().optional(),
    CONTACT_FORM_URL: z.url().optional(),
    CONTACT_FORM_FILE: z.string().min(1).default('server/contact-form.json'),
    CONTACT_FORM_LABELS_PATH: z.string().min(1).default('fields[].label'),
    CONTACT_FORM_TTL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(5 * 60_000),
    POSTMARK_SERVER_TOKEN: z.string().min(1).optional(),
    POSTMARK_FROM: z.string().min(3).optional(),
    POSTMARK_MESSAGE_STREAM: z.string().min(1).default('outbound'),
    POSTMARK_API_URL: z.url().optional(),
    POSTMARK_WEBHOOK_USER: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[^:]+$/, 'no colon')
      .optional(),
    POSTMARK_WEBHOOK_PASSWORD: z.string().min(16, 'at least 16 characters').max(200).optional(),
    TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
    TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
    TWILIO_FROM: z.string().min(1).optional(),
    TWILIO_MESSAGING_SERVICE_SID: z.string().min(1).optional(),
    TWILIO_API_URL: z.url().optional(),
  })
  .superRefine((env, ctx) => {
    if (env.S3_BUCKET) {
      for (const key of ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required with S3_BUCKET' })
      }
    }
    if (env.POSTMARK_SERVER_TOKEN && !env.POSTMARK_FROM) {
      ctx.addIssue({ code: 'custom', path: ['POSTMARK_FROM'], message: 'required with POSTMARK_SERVER_TOKEN' })
    }
    if (Boolean(env.POSTMARK_WEBHOOK_USER) !== Boolean(env.POSTMARK_WEBHOOK_PASSWORD)) {
      const missing = env.POSTMARK_WEBHOOK_USER ? 'POSTMARK_WEBHOOK_PASSWORD' : 'POSTMARK_WEBHOOK_USER'
      ctx.addIssue({ code: 'custom', path: [missing], message: 'POSTMARK_WEBHOOK_USER and POSTMARK_WEBHOOK_PASSWORD go together' })
    }
    if (env.TWILIO_ACCOUNT_SID) {
      if (!env.TWILIO_AUTH_TOKEN) ctx.addIssue({ code: 'custom', path: ['TWILIO_AUTH_TOKEN'], message: 'required with TWILIO_ACCOUNT_SID' })
      if (!env.TWILIO_FROM && !env.TWILIO_MESSAGING_SERVICE_SID) {
        ctx.addIssue({
          code: 'custom',
          path: ['TWILIO_FROM'],
          message: 'TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID is required with TWILIO_ACCOUNT_SID',
        })
      }
    }
    if (env.MODE && (env.NODE_ENV === 'production' || env.NODE_ENV === 'development') && env.NODE_ENV !== env.MODE) {
      ctx.addIssue({
        code: 'custom',
        path: ['MODE'],
        message: `MODE=${env.MODE} contradicts NODE_ENV=${env.NODE_ENV}: set one of them, or both alike (development mode seeds a demo event, sends messages to the console and its cookies are not Secure)`,
      })
    }
    if (modeOf(env) !== 'production') return
    for (const key of ['DATABASE_URL', 'PUBLIC_URL', 'CDN_URL', 'GALLERY_URL', 'AUTH_SECRET'] as const) {
      if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required in production' })
    }
    // Believed from anyone, the header would let a client escape every limit; ignored, every client
    // behind the edge would share its address (and its limit): neither silently.
    if (env.CLIENT_IP_HEADER && !env.TRUSTED_PROXIES?.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRUSTED_PROXIES'],
        message: 'required with CLIENT_IP_HEADER in production: the addresses (or CIDR ranges) of the edge that sets the header',
      })
    }
  })
  .transform((env) => ({ ...env, MODE: modeOf(env) }))

export type Config = {
  mode: 'development' | 'production'
  host: string
  port: number
  /** Absent in development: the embedded PostgreSQL under `dataDir` is used. */
  databaseUrl?: string
  dataDir: string
  embeddedPostgresPort: number
  /** This server's own address as guests and booths reach it. */
  publicUrl: string
  /** Base of photo URLs in responses; in development this server's own /photos. */
  cdnUrl: string
  /** Told of every photo prefix deleted from storage (erasure, purge, deletion), for a CDN that caches photos. */
  cdnPurgeUrl?: string
  /** Base of the gallery links sent to guests. */
  galleryUrl: string
  /** Where a set's kiosk opens: a URL with `{event}` and `{set}` (the slugs) in it. */
  kioskUrl: string
  staffAuth: StaffAuthSettings
  /** Origins whose pages may call the public routes from a browser (CORS); none by default. */
  corsOrigins: string[]
  seedDemo: boolean
  /** Apply pending migrations at start (several instances at once are safe); off: a release step runs `migrate`. */
  migrateOnStart: boolean
  storage: StorageSettings
  delivery: DeliverySettings
  copies: CopiesSettings
  retention: RetentionSettings
  /** Days the staff audit trail is kept (pruned with the purge). */
  auditRetentionDays: number
  rateLimits: RateLimitSettings
  /** One rate-limit count across instances; unset: each instance counts its own. */
  redisUrl?: string
  /** How long a rate limit waits on Redis before it lets the request through uncounted. */
  redisTimeoutMs: number
  /** How long anything waits on PostgreSQL (db/orm.ts). */
  databaseTimeouts: DatabaseTimeouts
  /** How many rows of each raw query's result are checked against its schema (db/query.ts). */
  rowChecks: RowChecks
  contact: ContactSettings
  /** The edge's request-id header, whose sane value becomes this request's id (`X-Request-Id`). */
  requestIdHeader: string
  logLevel: LogLevel
  /** Turns `GET /metrics` on, for a scraper that sends it as a bearer token. */
  metricsToken?: string
  /** On SIGTERM, how long requests in flight may take before their connections are closed. */
  shutdownGraceMs: number
  /** On SIGTERM, how long to go on serving, with `/readyz` answering 503, before the drain begins. */
  shutdownDelayMs: number
}

/** Staff sign-in (Better Auth). */
export type StaffAuthSettings = {
  /** Signs session cookies. Unset (development only): a random one kept in `DATA_DIR/auth-secret`. */
  secret?: string
  /** Origins allowed to make cookie-authenticated changes, besides the service's own (`PUBLIC_URL`). */
  trustedOrigins: string[]
}

/** The contact form: where its labels come from, and where submissions go (absent: 503). */
export type ContactSettings = {
  form: ContactFormSource
  mail?: ({ kind: 'postmark'; to: string } & PostmarkSettings) | { kind: 'console' }
}

/**
 * Where gallery links go: the providers when their keys are set; otherwise the console in
 * development, and nowhere in production (messages then wait, "not configured").
 */
export type DeliverySettings = {
  /** Whether this instance runs the dispatcher (any number of instances may). */
  dispatch: boolean
  email?: ({ kind: 'postmark' } & PostmarkSettings) | { kind: 'console' }
  sms?: ({ kind: 'twilio' } & TwilioSettings) | { kind: 'console' }
  dispatcher: DispatcherSettings
  /** The basic credentials Postmark's webhooks must carry (modules/webhooks); unset: they are refused. */
  postmarkWebhook?: { user: string; password: string }
}

/** Retention (modules/retention): how long guests' data is kept, and the purge that removes it. */
export type RetentionSettings = {
  /** Days after an event's start its guests' data is kept, unless the event sets its own. */
  defaultDays: number
  /** Whether this instance runs the purge (several may: each session is purged once). */
  work: boolean
  /** How often the purge looks for what has expired. */
  intervalMs: number
}

/** The photos' copies (modules/photos): made off the request path by a worker on any number of instances. */
export type CopiesSettings = {
  /** Whether this instance runs the copies worker. */
  work: boolean
  worker: CopiesWorkerSettings
  /** How long a completed session's gallery links wait for its copies before they go anyway. */
  linkWaitMs: number
}

/**
 * S3 when a bucket is configured; otherwise the local bucket on disk in development, and none in
 * production (the routes that need storage then answer 503).
 */
export type StorageSettings =
  | {
      kind: 's3'
      bucket: string
      region: string
      /** For R2, MinIO and other S3-compatible services. */
      endpoint?: string
      forcePathStyle: boolean
      accessKeyId: string
      secretAccessKey: string
      /** How long one storage call may go without an answer (connecting, then each wait for bytes). */
      timeoutMs: number
    }
  | { kind: 'local'; root: string; secret: string }
  | { kind: 'none' }

/**
 * How long a production instance goes on serving after SIGTERM, not ready, before it drains: what a
 * load balancer needs to see `/readyz` fail and stop sending it requests, probe interval × failures
 * to mark it down + one probe's timeout: 2 s × 2 + 1 s (docs/production.md).
 */
const PRODUCTION_SHUTDOWN_DELAY_MS = 5_000

/** A provider call that takes longer is abandoned and retried later. */
const PROVIDER_TIMEOUT_MS = 15_000

/** The environment as parsed: the URLs may still depend on the port the server gets. */
export type Settings = Omit<Config, 'publicUrl' | 'cdnUrl' | 'galleryUrl' | 'kioskUrl'> & {
  publicUrl?: string
  cdnUrl?: string
  galleryUrl?: string
  kioskUrl?: string
}

/** Parses the environment once at start-up and fails with every problem listed at once. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  // A variable set to nothing (`PORT= pnpm start`, a compose file's `${PORT:-}`) is unset: its default,
  // not a number read from '' (0: a random port, no shutdown grace).
  const parsed = Environment.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value?.trim())))
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`Invalid configuration:\n${problems.join('\n')}`)
  }
  const e = parsed.data
  const development = e.MODE === 'development'
  // One Postmark account serves gallery links and the contact form.
  const postmark: PostmarkSettings | undefined = e.POSTMARK_SERVER_TOKEN
    ? {
        serverToken: e.POSTMARK_SERVER_TOKEN,
        from: e.POSTMARK_FROM!,
        messageStream: e.POSTMARK_MESSAGE_STREAM,
        apiUrl: e.POSTMARK_API_URL,
        timeoutMs: PROVIDER_TIMEOUT_MS,
      }
    : undefined
  return {
    mode: e.MODE,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    embeddedPostgresPort: e.EMBEDDED_POSTGRES_PORT,
    publicUrl: e.PUBLIC_URL,
    cdnUrl: e.CDN_URL,
    cdnPurgeUrl: e.CDN_PURGE_URL,
    galleryUrl: e.GALLERY_URL,
    kioskUrl: e.KIOSK_URL,
    staffAuth: { secret: e.AUTH_SECRET, trustedOrigins: e.TRUSTED_ORIGINS ?? [] },
    corsOrigins: e.CORS_ORIGINS ?? [],
    seedDemo: e.SEED_DEMO ? e.SEED_DEMO === 'true' : e.MODE === 'development',
    migrateOnStart: e.MIGRATE_ON_START === 'true',
    storage: e.S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
          endpoint: e.S3_ENDPOINT,
          forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true',
          accessKeyId: e.S3_ACCESS_KEY_ID!,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
          timeoutMs: e.S3_TIMEOUT_MS,
        }
      : e.MODE === 'development'
        ? // Upload URLs signed with a per-process secret die on restart; they live 15 minutes anyway.
          { kind: 'local', root: join(e.DATA_DIR, 'bucket'), secret: e.LOCAL_UPLOAD_SECRET ?? randomBytes(32).toString('base64url') }
        : { kind: 'none' },
    copies: {
      work: e.COPIES === 'on',
      worker: { ...DEFAULT_COPIES_SETTINGS, concurrency: e.COPIES_CONCURRENCY },
      linkWaitMs: e.COPIES_LINK_WAIT_MS,
    },
    retention: { defaultDays: e.RETENTION_DAYS, work: e.PURGE === 'on', intervalMs: e.PURGE_INTERVAL_MS },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    rateLimits: {
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      clientIpHeader: e.CLIENT_IP_HEADER,
      trustedProxies: e.TRUSTED_PROXIES ?? (development ? ['loopback'] : []),
    },
    contact: {
      form: e.CONTACT_FORM_URL
        ? { kind: 'url', url: e.CONTACT_FORM_URL, labelsPath: e.CONTACT_FORM_LABELS_PATH, ttlMs: e.CONTACT_FORM_TTL_MS }
        : e.MODE === 'development'
          ? { kind: 'file', path: e.CONTACT_FORM_FILE, labelsPath: e.CONTACT_FORM_LABELS_PATH, ttlMs: e.CONTACT_FORM_TTL_MS }
          : { kind: 'none' },
      mail: postmark && e.CONTACT_TO ? { kind: 'postmark', to: e.CONTACT_TO, ...postmark } : development ? { kind: 'console' } : undefined,
    },
    redisUrl: e.REDIS_URL,
    redisTimeoutMs: e.REDIS_TIMEOUT_MS,
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      acquireMs: e.DATABASE_ACQUIRE_TIMEOUT_MS,
      statementMs: e.DATABASE_TIMEOUT_MS,
    },
    rowChecks: e.ROW_CHECKS ?? (development ? 'every' : 'first'),
    requestIdHeader: e.REQUEST_ID_HEADER,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS ?? (development ? 0 : PRODUCTION_SHUTDOWN_DELAY_MS),
    delivery: {
      dispatch: e.DELIVERY === 'on',
      email: postmark ? { kind: 'postmark', ...postmark } : development ? { kind: 'console' } : undefined,
      sms: e.TWILIO_ACCOUNT_SID
        ? {
            kind: 'twilio',
            accountSid: e.TWILIO_ACCOUNT_SID,
            authToken: e.TWILIO_AUTH_TOKEN!,
            from: e.TWILIO_FROM,
            messagingServiceSid: e.TWILIO_MESSAGING_SERVICE_SID,
            apiUrl: e.TWILIO_API_URL,
            timeoutMs: PROVIDER_TIMEOUT_MS,
          }
        : e.MODE === 'development'
          ? { kind: 'console' }
          : undefined,
      dispatcher: {
        ...DEFAULT_DISPATCHER_SETTINGS,
        concurrency: e.DELIVERY_CONCURRENCY,
        perSecond: { email: e.DELIVERY_EMAIL_PER_SECOND, sms: e.DELIVERY_SMS_PER_SECOND },
        providerBatch: e.DELIVERY_EMAIL_BATCH,
        retryForMs: e.DELIVERY_RETRY_HOURS * 3_600_000,
        senderName: e.SMS_SENDER_NAME ?? null,
      },
      postmarkWebhook:
        e.POSTMARK_WEBHOOK_USER && e.POSTMARK_WEBHOOK_PASSWORD
          ? { user: e.POSTMARK_WEBHOOK_USER, password: e.POSTMARK_WEBHOOK_PASSWORD }
          : undefined,
    },
  }
}

/** Fills the URLs left unset (development only) from the port the server actually listens on. */
export function resolveConfig(settings: Settings, port: number): Config {
  const publicUrl = settings.publicUrl ?? `http://localhost:${port}`
  return {
    ...settings,
    port,
    publicUrl,
    cdnUrl: settings.cdnUrl ?? `${publicUrl}/photos`,
    galleryUrl: settings.galleryUrl ?? `${publicUrl}${GALLERY_PAGES_PATH}`,
    kioskUrl: settings.kioskUrl ?? `${publicUrl}${KIOSK_APP_PATH}/{event}/{set}`,
    staffAuth: { ...settings.staffAuth, trustedOrigins: [...new Set([new URL(publicUrl).origin, ...settings.staffAuth.trustedOrigins])] },
  }
}
