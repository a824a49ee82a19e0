import { describe, expect, it } from 'vitest'

import { loadSettings, resolveConfig } from './config.js'

const PRODUCTION = {
  MODE: 'production',
  DATABASE_URL: 'postgres://u:p@db.example.com:5432/photobooth',
  PUBLIC_URL: 'https://api.booth.example.com/',
  CDN_URL: 'https://cdn.booth.example.com',
  GALLERY_URL: 'https://booth.example.com/g',
  AUTH_SECRET: 'k'.repeat(32),
}

describe('configuration', () => {
  it('when nothing is set, then development runs on the embedded database, local bucket, console transports and the local contact page', () => {
    const settings = loadSettings({})
    expect(settings).toMatchObject({ mode: 'development', port: 3000, databaseUrl: undefined, seedDemo: true })
    expect(settings.storage.kind).toBe('local')
    expect(settings.delivery).toMatchObject({ dispatch: true, email: { kind: 'console' }, sms: { kind: 'console' } })
    expect(settings.contact).toMatchObject({ form: { kind: 'file', path: 'server/contact-form.json' }, mail: { kind: 'console' } })
    expect(resolveConfig(settings, 4321)).toMatchObject({
      publicUrl: 'http://localhost:4321',
      cdnUrl: 'http://localhost:4321/photos',
      galleryUrl: 'http://localhost:4321/g',
    })
  })

  it('when production lacks provider keys, then storage, messages and the contact form are "not configured", not faked', () => {
    const settings = loadSettings(PRODUCTION)
    expect(settings.storage).toEqual({ kind: 'none' })
    expect(settings.delivery.email).toBeUndefined()
    expect(settings.delivery.sms).toBeUndefined()
    expect(settings.contact).toEqual({ form: { kind: 'none' }, mail: undefined })
    expect(settings.seedDemo).toBe(false)
    expect(settings.publicUrl).toBe('https://api.booth.example.com')
  })

  it('when nothing bounds the waits, then every dependency still has its bound, and production waits out a balancer on SIGTERM', () => {
    const development = loadSettings({})
    expect(development).toMatchObject({
      databaseTimeouts: { connectMs: 10_000, acquireMs: 10_000, statementMs: 5_000 },
      redisTimeoutMs: 250,
      shutdownDelayMs: 0,
    })
    expect(development.delivery.dispatcher).toMatchObject({ retryForMs: 24 * 3_600_000, leaseMs: 60_000 })
    const production = loadSettings({ ...PRODUCTION, S3_BUCKET: 'photos', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' })
    expect(production).toMatchObject({ shutdownDelayMs: 5_000, storage: { kind: 's3', timeoutMs: 5_000 } })
    const chosen = loadSettings({
      ...PRODUCTION,
      SHUTDOWN_DELAY_MS: '0',
      DATABASE_TIMEOUT_MS: '20000',
      DELIVERY_RETRY_HOURS: '2',
      REDIS_TIMEOUT_MS: '100',
    })
    expect(chosen).toMatchObject({ shutdownDelayMs: 0, databaseTimeouts: { statementMs: 20_000 }, redisTimeoutMs: 100 })
    expect(chosen.delivery.dispatcher.retryForMs).toBe(2 * 3_600_000)
  })

  it('when a variable is set to nothing, then it has its default, as if unset', () => {
    const settings = loadSettings({ PORT: '', SHUTDOWN_GRACE_MS: ' ', DELIVERY_CONCURRENCY: '', SHUTDOWN_DELAY_MS: '', MODE: '' })
    expect(settings).toMatchObject({ mode: 'development', port: 3000, shutdownGraceMs: 10_000, shutdownDelayMs: 0 })
    expect(settings.delivery.dispatcher.concurrency).toBe(16)
  })

  it('when production misses its addresses, then start-up fails listing every one', () => {
    expect(() => loadSettings({ MODE: 'production' })).toThrow(
      /DATABASE_URL: required in production[\s\S]*PUBLIC_URL[\s\S]*CDN_URL[\s\S]*GALLERY_URL[\s\S]*AUTH_SECRET: required in production/,
    )
  })

  it('when staff settings are given, then the kiosk URL template, the auth secret and the trusted origins are read; bad ones stop the start', () => {
    const settings = loadSettings({
      KIOSK_URL: 'https://kiosk.example.com/{event}/{set}',
      AUTH_SECRET: 's'.repeat(40),
      TRUSTED_ORIGINS: 'https://dashboard.example.com, https://ops.example.com',
    })
    expect(settings.staffAuth).toEqual({
      secret: 's'.repeat(40),
      trustedOrigins: ['https://dashboard.example.com', 'https://ops.example.com'],
    })
    expect(resolveConfig(settings, 4321)).toMatchObject({
      kioskUrl: 'https://kiosk.example.com/{event}/{set}',
      staffAuth: { trustedOrigins: ['http://localhost:4321', 'https://dashboard.example.com', 'https://ops.example.com'] },
    })
    expect(resolveConfig(loadSettings({}), 4321).kioskUrl).toBe('http://localhost:4321/kiosk/{event}/{set}')
    expect(() => loadSettings({ KIOSK_URL: 'https://kiosk.example.com/' })).toThrow(/KIOSK_URL: a URL with \{event\} and \{set\} in it/)
    expect(() => loadSettings({ AUTH_SECRET: 'short' })).toThrow(/AUTH_SECRET: at least 32 characters/)
    expect(() => loadSettings({ TRUSTED_ORIGINS: 'https://dashboard.example.com/path' })).toThrow(
      /TRUSTED_ORIGINS: a comma-separated list of origins/,
    )
    expect(loadSettings({ CORS_ORIGINS: 'https://photos.example.com,http://localhost:5173' }).corsOrigins).toEqual([
      'https://photos.example.com',
      'http://localhost:5173',
    ])
    expect(loadSettings({}).corsOrigins).toEqual([])
    expect(() => loadSettings({ CORS_ORIGINS: '*' })).toThrow(/CORS_ORIGINS: a comma-separated list of origins/)
  })

  it('when provider keys come without their companions, then start-up says which are missing', () => {
    expect(() => loadSettings({ S3_BUCKET: 'photos', POSTMARK_SERVER_TOKEN: 't', TWILIO_ACCOUNT_SID: 'AC1' })).toThrow(
      /S3_ACCESS_KEY_ID[\s\S]*S3_SECRET_ACCESS_KEY[\s\S]*POSTMARK_FROM[\s\S]*TWILIO_AUTH_TOKEN[\s\S]*TWILIO_FROM/,
    )
  })

  it('when NODE_ENV=production is the only hint, then it runs production; when MODE contradicts NODE_ENV, start-up names both', () => {
    const { MODE: _mode, ...productionWithoutMode } = PRODUCTION
    expect(loadSettings({ ...productionWithoutMode, NODE_ENV: 'production' })).toMatchObject({ mode: 'production', seedDemo: false })
    // Production's required settings are asked for, not development silently run.
    expect(() => loadSettings({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL: required in production/)
    expect(() => loadSettings({ MODE: 'development', NODE_ENV: 'production' })).toThrow(/MODE=development contradicts NODE_ENV=production/)
    expect(() => loadSettings({ ...PRODUCTION, NODE_ENV: 'development' })).toThrow(/MODE=production contradicts NODE_ENV=development/)
    // Other NODE_ENV values (a test runner's `test`) say nothing about the mode.
    expect(loadSettings({ NODE_ENV: 'test' }).mode).toBe('development')
    expect(loadSettings({ ...PRODUCTION, NODE_ENV: 'production' }).mode).toBe('production')
  })

  it('when production reads the client-IP header, then it must be told which proxies set it; a list it cannot read stops the start', () => {
    expect(() => loadSettings({ ...PRODUCTION, CLIENT_IP_HEADER: 'cf-connecting-ip' })).toThrow(
      /TRUSTED_PROXIES: required with CLIENT_IP_HEADER/,
    )
    const settings = loadSettings({
      ...PRODUCTION,
      CLIENT_IP_HEADER: 'cf-connecting-ip',
      TRUSTED_PROXIES: '173.245.48.0/20, 2400:cb00::/32',
    })
    expect(settings.rateLimits.trustedProxies).toEqual(['173.245.48.0/20', '2400:cb00::/32'])
    expect(loadSettings({}).rateLimits.trustedProxies).toEqual(['loopback'])
    expect(() => loadSettings({ TRUSTED_PROXIES: '10.0.0.0/99' })).toThrow(/TRUSTED_PROXIES/)
  })

  it('when values are malformed, then start-up refuses them', () => {
    expect(() => loadSettings({ PORT: 'eighty' })).toThrow(/PORT/)
    expect(() => loadSettings({ MODE: 'staging' })).toThrow(/MODE/)
    expect(() => loadSettings({ CLIENT_IP_HEADER: 'bad header' })).toThrow(/CLIENT_IP_HEADER/)
  })

  it('when providers are configured, then production uses them', () => {
    const settings = loadSettings({
      ...PRODUCTION,
      S3_BUCKET: 'photos',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
      S3_ENDPOINT: 'https://account.r2.cloudflarestorage.com',
      S3_FORCE_PATH_STYLE: 'true',
      POSTMARK_SERVER_TOKEN: 'pm',
      POSTMARK_FROM: 'photos@booth.example.com',
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 'tw',
      TWILIO_MESSAGING_SERVICE_SID: 'MG1',
      CONTACT_TO: 'hello@booth.example.com',
      CONTACT_FORM_URL: 'https://cms.example.com/api/pages/contact',
    })
    expect(settings.storage).toMatchObject({ kind: 's3', bucket: 'photos', forcePathStyle: true })
    expect(settings.delivery.email).toMatchObject({ kind: 'postmark', from: 'photos@booth.example.com', messageStream: 'outbound' })
    expect(settings.delivery.sms).toMatchObject({ kind: 'twilio', messagingServiceSid: 'MG1' })
    expect(settings.contact).toMatchObject({ form: { kind: 'url' }, mail: { kind: 'postmark', to: 'hello@booth.example.com' } })
  })
})
