import { betterAuth, type BetterAuthOptions } from 'better-auth'
import { PASSWORD_LENGTH } from '@photobooth/sdk/schemas'
import pg from 'pg'

import { pgTimeouts, type DatabaseTimeouts } from '../../db/timeouts.js'
import { describeError, type Logger } from '../../logger.js'
import { AUTH_SCHEMA } from './auth-schema.js'

/** A staff session lasts a week of inactivity at most; its expiry moves on at most once a day of use. */
const SESSION_SECONDS = 7 * 24 * 60 * 60
const SESSION_REFRESH_SECONDS = 24 * 60 * 60

export type AuthSettings = {
  /** Signs the session cookie; 32 characters or more. */
  secret: string
  /** This service's public address: Better Auth's base URL. */
  publicUrl: string
  /** Origins whose pages may make cookie-authenticated changes (the service's own, and the operator's dashboards). */
  trustedOrigins: string[]
  /** Cookies marked Secure (and prefixed `__Secure-`): production is served over HTTPS. */
  secureCookies: boolean
}

/**
 * The session cookie's SameSite: Lax, unless a trusted dashboard is on another site over HTTPS, whose
 * requests carry the cookie only if it is None (and Secure, which None requires). Lax still reaches a
 * dashboard on another port or subdomain of the same site. The Origin check guards changes either way.
 */
export function sessionSameSite(settings: Pick<AuthSettings, 'publicUrl' | 'trustedOrigins' | 'secureCookies'>): 'lax' | 'none' {
  const own = new URL(settings.publicUrl)
  const crossSite = settings.trustedOrigins.some((origin) => siteOf(new URL(origin)) !== siteOf(own))
  return settings.secureCookies && crossSite ? 'none' : 'lax'
}

/** A site as browsers group origins for SameSite: scheme and the last two labels of the host (a registrable domain, near enough). */
const siteOf = (url: URL) => `${url.protocol}//${url.hostname.split('.').slice(-2).join('.')}`

function authOptions(settings: AuthSettings, database: pg.Pool, logger: Logger) {
  return {
    ...AUTH_SCHEMA,
    database,
    // Into the service's log, as its JSON lines. Better Auth calls a client's refusal (a wrong origin,
    // a bad field) an error too; only what comes with an Error object is a fault. At 'info', it also
    // stops writing its own coloured copy of every refusal to stdout.
    logger: {
      level: 'info',
      log: (level: string, message: string, ...args: unknown[]) =>
        level === 'error' && args[0] instanceof Error ? logger.error(`auth: ${message}`, args[0]) : logger.info(`auth: ${message}`),
    },
    secret: settings.secret,
    baseURL: settings.publicUrl,
    basePath: '/api/auth',
    trustedOrigins: settings.trustedOrigins,
    telemetry: { enabled: false },
    // Sign-up is closed: the first staff member comes from `pnpm admin staff create`, the others are invited.
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: PASSWORD_LENGTH.min,
      maxPasswordLength: PASSWORD_LENGTH.max,
    },
    // Only the routes the contract lists are mounted (auth.routes.ts): nothing else of Better Auth's is reachable.
    session: { ...AUTH_SCHEMA.session, expiresIn: SESSION_SECONDS, updateAge: SESSION_REFRESH_SECONDS },
    // Ours counts sign-ins (10 a minute per client IP, answered 429); Better Auth's would trust a forged X-Forwarded-For.
    rateLimit: { enabled: false },
    advanced: {
      cookiePrefix: 'photobooth',
      useSecureCookies: settings.secureCookies,
      // Said outright: Better Auth skips its Origin check under a test runner otherwise, and the tests check it.
      disableOriginCheck: false,
      // Staff sessions do not record where they came from: nothing would read it.
      ipAddress: { disableIpTracking: true },
      defaultCookieAttributes: { sameSite: sessionSameSite(settings), httpOnly: true },
    },
  } satisfies BetterAuthOptions
}

export type StaffAuth = ReturnType<typeof betterAuth<ReturnType<typeof authOptions>>>

export type AuthService = { auth: StaffAuth; close: () => Promise<void> }

/** Better Auth on our PostgreSQL, through a small pool of its own (its Kysely adapter takes a pg.Pool). */
export function createAuth(settings: AuthSettings, database: { url: string; timeouts: DatabaseTimeouts }, logger: Logger): AuthService {
  const pool = new pg.Pool({ connectionString: database.url, max: 4, ...pgTimeouts(database.timeouts) })
  // An idle connection the database drops (a restart, a cut) is an 'error' on the pool, which would
  // otherwise end the process; the pool makes a new one when it is next needed.
  pool.on('error', (error) => logger.warn('auth: an idle database connection was lost', { error: describeError(error) }))
  const auth = betterAuth(authOptions(settings, pool, logger))
  return { auth, close: () => pool.end() }
}
