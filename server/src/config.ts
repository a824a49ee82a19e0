import { randomBytes } from 'node:crypto'
import { join } from 'node:path'

import { z } from 'zod'

const optionalUrl = z.url().transform((url) => url.replace(/\/+$/, '')).optional()

const Environment = z
  .object({
    MODE: z.enum(['development', 'production']).default('development'),
    HOST: z.string().min(1).default('0.0.0.0'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    DATABASE_URL: z.url().optional(),
    DATA_DIR: z.string().min(1).default('.data'),
    EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
    PUBLIC_URL: optionalUrl,
    CDN_URL: optionalUrl,
    GALLERY_URL: optionalUrl,
    SEED_DEMO: z.enum(['true', 'false']).optional(),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ENDPOINT: z.url().optional(),
    S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    LOCAL_UPLOAD_SECRET: z.string().min(32).optional(),
  })
  .superRefine((env, ctx) => {
    if (env.S3_BUCKET) {
      for (const key of ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required with S3_BUCKET' })
      }
    }
    if (env.MODE !== 'production') return
    for (const key of ['DATABASE_URL', 'PUBLIC_URL', 'CDN_URL', 'GALLERY_URL'] as const) {
      if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required in production' })
    }
  })

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
  /** Base of the gallery links sent to guests. */
  galleryUrl: string
  seedDemo: boolean
  storage: StorageSettings
}

/**
 * S3 when a bucket is configured; otherwise the local bucket on disk in development, and none in
 * production (the routes that need storage then answer 503).
 */
export type StorageSettings =
  | { kind: 's3'; bucket: string; region: string; endpoint?: string; forcePathStyle: boolean; accessKeyId: string; secretAccessKey: string }
  | { kind: 'local'; root: string; secret: string }
  | { kind: 'none' }

/** The environment as parsed: the URLs may still depend on the port the server gets. */
export type Settings = Omit<Config, 'publicUrl' | 'cdnUrl' | 'galleryUrl'> & {
  publicUrl?: string
  cdnUrl?: string
  galleryUrl?: string
}

/** Parses the environment once at start-up and fails with every problem listed at once. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed = Environment.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`Invalid configuration:\n${problems.join('\n')}`)
  }
  const e = parsed.data
  return {
    mode: e.MODE,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    embeddedPostgresPort: e.EMBEDDED_POSTGRES_PORT,
    publicUrl: e.PUBLIC_URL,
    cdnUrl: e.CDN_URL,
    galleryUrl: e.GALLERY_URL,
    seedDemo: e.SEED_DEMO ? e.SEED_DEMO === 'true' : e.MODE === 'development',
    storage: e.S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
          endpoint: e.S3_ENDPOINT,
          forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true',
          accessKeyId: e.S3_ACCESS_KEY_ID!,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
        }
      : e.MODE === 'development'
        ? // Upload URLs signed with a per-process secret die on restart; they live 15 minutes anyway.
          { kind: 'local', root: join(e.DATA_DIR, 'bucket'), secret: e.LOCAL_UPLOAD_SECRET ?? randomBytes(32).toString('base64url') }
        : { kind: 'none' },
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
    galleryUrl: settings.galleryUrl ?? `${publicUrl}/gallery`,
  }
}
