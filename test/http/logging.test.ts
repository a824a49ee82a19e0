import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { loadSettings } from '@photobooth/server/config'
import { createLogger } from '@photobooth/server/logger'
import { startDispatcher } from '@photobooth/server/modules/messages/dispatcher'
import { createPostmarkTransport } from '@photobooth/server/modules/messages/postmark-transport'
import { createClient, isDefinedError, safe } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { POSTMARK_INACTIVE, startFakePostmark, type FakePostmark } from '../support/fake-providers.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { createTestBoothKey, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { until } from '../support/until.js'
import { freePort, serviceEnv } from '../support/processes.js'
import { startFakeS3 } from '../support/s3.js'
import { testDatabaseUrl } from '../support/database-url.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A logger whose lines are kept, as a log shipper would receive them. */
function capturingLogger() {
  const lines: string[] = []
  return { lines, logger: createLogger({ write: (line) => void lines.push(line) }) }
}

let app: TestServer
let postmark: FakePostmark
const databases = scratchDatabases('logging')
beforeAll(async () => {
  postmark = await startFakePostmark()
  app = await startTestServer()
})
afterAll(async () => {
  await app?.stop()
  await postmark?.close()
  await databases.dropAll()
})

describe('what the logs hold', () => {
  it("when a statement with a guest's email fails in the database, then the log has its SQLSTATE and the statement, not the email", async () => {
    const { lines, logger } = capturingLogger()
    const error = await app.orm.em
      .fork()
      .execute('insert into customer (id, email, phone, first_name, last_name) values (?, ?, ?, ?, ?)', [
        null,
        'ada.secret@example.org',
        '+14155550123',
        'Ada',
        'Lovelace',
      ])
      .catch((caught: unknown) => caught)
    expect(String((error as Error).message)).toContain('ada.secret@example.org')
    logger.error('request failed', error)
    const record = JSON.parse(lines[0]!)
    expect(record.error).toMatchObject({ code: '23502', message: expect.stringContaining('insert into customer') })
    expect(lines[0]).not.toMatch(/ada\.secret|4155550123|Lovelace/)
  })

  it("when a message fails for good, then the log names the message, not the guest's address", async () => {
    // Messages other tests left pending would take the refusal meant for this one.
    await app.orm.em
      .fork()
      .execute(`update outbox_message set status = 'failed', last_error = 'left by another test' where status = 'pending'`)
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Ada', email: 'ada.private@example.org' }] })
    postmark.refuse('ada.private@example.org', POSTMARK_INACTIVE.body as { ErrorCode: number; Message: string })
    const { lines, logger } = capturingLogger()
    const dispatcher = startDispatcher({
      orm: app.orm,
      transports: {
        email: createPostmarkTransport({
          serverToken: 't',
          from: 'Photos <p@example.com>',
          messageStream: 'outbound',
          apiUrl: postmark.url,
          timeoutMs: 2_000,
        }),
      },
      logger,
      settings: { intervalMs: 50, batchSize: 10, retryForMs: 3_600_000, baseDelayMs: 20, maxDelayMs: 100, leaseMs: 5_000 },
    })
    try {
      await expect.poll(() => lines.length, { timeout: 5_000 }).toBeGreaterThan(0)
    } finally {
      await dispatcher.stop()
    }
    const [row] = await app.orm.em
      .fork()
      .execute<{ id: string }[]>('select id from outbox_message where session_id = ?', [gallery.sessionId])
    expect(lines[0]).toContain(row!.id)
    expect(lines.join('')).not.toContain('ada.private')
  })

  it('when a route answers 503 because storage is not configured, then nothing is logged as an error', async () => {
    const { lines, logger } = capturingLogger()
    const production = await startTestServer({ storage: { kind: 'none' } }, { logger })
    try {
      const { sets } = await seedEvent(production.orm)
      const kiosk = createClient({ baseUrl: production.url })
      const session = await kiosk.kiosk.registerGuests({
        params: { setId: sets[0]!.id },
        body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] },
      })
      const booth = createClient({ baseUrl: production.url, boothKey: await createTestBoothKey(production) })
      const [error] = await safe(booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } }))
      expect(isDefinedError(error) && error.status).toBe(503)
    } finally {
      await production.stop()
    }
    expect(lines.filter((line) => JSON.parse(line).level === 'error')).toEqual([])
  })

  it('when a production instance sends gallery links without a provider for a channel, then one warning at start names the channel', async () => {
    // A database of its own: the dispatcher marks the pending messages of a channel without a provider.
    const databaseUrl = await databases.create()
    const { delivery } = loadSettings({
      POSTMARK_SERVER_TOKEN: 't',
      POSTMARK_FROM: 'Photos <p@example.com>',
      POSTMARK_API_URL: postmark.url,
    })
    const warnings = async (channels: Partial<typeof delivery>) => {
      const { lines, logger } = capturingLogger()
      // Production has no console stand-in: SMS without Twilio has no transport.
      const settings = { databaseUrl, mode: 'production' as const, delivery: { ...delivery, dispatch: true, sms: undefined, ...channels } }
      const production = await startTestServer(settings, { logger })
      await production.stop()
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.level === 'warn')
    }
    expect(await warnings({ email: undefined })).toEqual([
      {
        level: 'warn',
        time: expect.any(String),
        message: 'no provider for email and sms: gallery links wait as "not configured"',
        channels: ['email', 'sms'],
      },
    ])
    expect(await warnings({})).toEqual([
      {
        level: 'warn',
        time: expect.any(String),
        message: 'no provider for sms: gallery links wait as "not configured"',
        channels: ['sms'],
      },
    ])
  })

  it('when the process the README runs starts and gets SIGTERM, then it logs the address it bound beside PUBLIC_URL, and last, that it stopped', async () => {
    const port = await freePort()
    const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-logging-'))
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: serviceEnv({
        DATABASE_URL: testDatabaseUrl(),
        PORT: String(port),
        PUBLIC_URL: 'https://photos.example.com',
        DATA_DIR: dataDir,
        AUTH_SECRET: randomBytes(32).toString('base64url'),
        DELIVERY: 'off',
      }),
    })
    try {
      const records: Record<string, unknown>[] = []
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
        void exited.then((code) => reject(new Error(`the service exited (${code}) before it listened`)))
        createInterface({ input: child.stdout }).on('line', (line) => {
          const record = JSON.parse(line) as Record<string, unknown>
          records.push(record)
          if (record.message === 'photo booth service listening') resolve(record)
        })
      })
      expect(await listening).toMatchObject({ level: 'info', url: 'https://photos.example.com', host: '127.0.0.1', port })
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(records.at(-1)).toEqual({ level: 'info', time: expect.any(String), message: 'stopped', durationMs: expect.any(Number) })
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('when the process starts with S3 and stops, then its whole output is JSON lines on stdout: library warnings (the AWS SDK on Node 20) included, nothing on stderr', async () => {
    const s3 = await startFakeS3()
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: serviceEnv({
        DATABASE_URL: testDatabaseUrl(),
        AUTH_SECRET: randomBytes(32).toString('base64url'),
        DELIVERY: 'off',
        S3_BUCKET: s3.settings.bucket,
        S3_ENDPOINT: s3.endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: s3.settings.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.settings.secretAccessKey,
      }),
    })
    try {
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      await until(
        async () => stdout,
        (text) => text.includes('"photo booth service listening"') || child.exitCode !== null,
        20_000,
      )
      // Readiness asks the bucket: the S3 client is made and used.
      const port = (JSON.parse(stdout.split('\n').find((line) => line.includes('"photo booth service listening"'))!) as { port: number })
        .port
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200)
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(stderr).toBe('')
      const lines = stdout.split('\n').filter(Boolean)
      for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow()
      expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toContain('stopped')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      await s3.close()
    }
  })
})
