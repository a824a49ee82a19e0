import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { createClient, uploadPhotos } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { startFakePostmark, startFakeTwilio, type FakeProvider } from '../support/fake-providers.js'
import { makeJpeg } from '../support/jpeg.js'
import { freePort, productionEnv } from '../support/processes.js'
import { startFakeS3, type FakeS3 } from '../support/s3.js'
import { until } from '../support/until.js'
import { unzip } from '../support/unzip.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const databases = scratchDatabases('built')
let s3: FakeS3
let postmark: FakeProvider
let twilio: FakeProvider
let env: NodeJS.ProcessEnv
let service: ChildProcess | undefined
let output = ''

/**
 * `pnpm build`'s server bundle, started as production starts it (`node server/dist/main.js`, no
 * TypeScript at run time, no pnpm between the signal and the process) in production mode, on an
 * empty PostgreSQL database, with S3 (s3rver), Postmark and Twilio (local fakes of their APIs).
 */
beforeAll(async () => {
  await run(process.execPath, ['--import', 'tsx', 'server/build.ts'], { cwd: ROOT })
  const databaseUrl = await databases.create()
  ;[s3, postmark, twilio] = await Promise.all([startFakeS3(), startFakePostmark(), startFakeTwilio()])
  const port = await freePort()
  env = productionEnv(port, databaseUrl, {
    CDN_URL: `${s3.endpoint}/photos`,
    S3_BUCKET: 'photos',
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    POSTMARK_SERVER_TOKEN: 'postmark-token',
    POSTMARK_FROM: 'Photos <photos@example.com>',
    POSTMARK_API_URL: postmark.url,
    TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
    TWILIO_AUTH_TOKEN: 'twilio-token',
    TWILIO_FROM: '+15005550006',
    TWILIO_API_URL: twilio.url,
  })
}, 120_000)

afterAll(async () => {
  if (service && service.exitCode === null && service.signalCode === null) {
    service.kill('SIGKILL')
    await once(service, 'exit')
  }
  await Promise.all([s3?.close(), postmark?.close(), twilio?.close()])
  await databases.dropAll()
})

const builtAdmin = async (...args: string[]) => (await run(process.execPath, ['server/dist/admin.js', ...args], { cwd: ROOT, env })).stdout

describe('the built server in production mode', () => {
  it('when started with node on the bundle, then it migrates an empty database, serves a whole event (register, upload, complete, gallery, zip, messages) and stops on SIGTERM', async () => {
    const bundle = await readFile(`${ROOT}server/dist/main.js`, 'utf8')
    expect(bundle).not.toMatch(/from ["']tsx/)
    service = spawn(process.execPath, ['server/dist/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    service.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    service.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    const url = env.PUBLIC_URL!
    await until(
      () =>
        fetch(`${url}/readyz`).then(
          (response) => response.status,
          () => 0,
        ),
      (status) => status === 200,
      20_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${output}`)
    })

    // The operator's commands, built too, on the same database.
    expect(await builtAdmin('migrate')).toBe('Every migration is applied.\n')
    expect(await builtAdmin('demo', 'seed')).toMatch(/^Created the demo event "demo"/)
    const boothKey = (await builtAdmin('booth-key', 'create', '--name', 'Booth 1')).match(/pbk_[A-Za-z0-9_-]+/)![0]

    const kiosk = createClient({ baseUrl: url })
    const { set } = await kiosk.kiosk.getContext({ eventSlug: 'demo', setSlug: 'photo-wall' })
    const session = await kiosk.kiosk.registerGuests({
      params: { setId: set.id },
      body: { guests: [{ name: 'Ada Lovelace', email: 'ada@example.org', phone: '(415) 555-2671' }] },
    })
    const booth = createClient({ baseUrl: url, boothKey })
    const completed = await uploadPhotos(booth, session.id, [makeJpeg(32, 24, 1), makeJpeg(24, 32, 2)])
    expect(completed).toMatchObject({ status: 'completed', galleryUrl: `${url}/g/${session.id}` })

    const gallery = await kiosk.gallery.getGallery({ sessionId: session.id })
    expect(gallery.photos.map((photo) => [photo.width, photo.height])).toEqual([
      [32, 24],
      [24, 32],
    ])
    expect(gallery.photos.every((photo) => photo.url.startsWith(`${s3.endpoint}/photos/sessions/${session.id}/`))).toBe(true)
    // The bundle's copies worker (sharp, from node_modules) makes each photo's copies on S3.
    const copied = await until(
      () => kiosk.gallery.getGallery({ sessionId: session.id }),
      (read) => read.photos.every((photo) => photo.copies),
      20_000,
    )
    const display = await fetch(copied.photos[0]!.copies![0]!.url)
    expect([display.status, display.headers.get('content-type')]).toEqual([200, 'image/webp'])
    const page = await fetch(completed.galleryUrl)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<h1>Ada Lovelace</h1>')
    expect(html).toContain(`srcset="${copied.photos[0]!.copies![0]!.url} `)
    const zip = await fetch(`${url}/gallery/${session.id}/zip`)
    expect(zip.status).toBe(200)
    expect((await unzip(Buffer.from(await zip.arrayBuffer()))).map((entry) => entry.name)).toEqual([
      'Ada Lovelace 1.jpg',
      'Ada Lovelace 2.jpg',
    ])

    await Promise.all([postmark.received(1), twilio.received(1)])
    expect(JSON.parse(postmark.requests[0]!.body).TextBody).toContain(completed.galleryUrl)
    expect(new URLSearchParams(twilio.requests[0]!.body).get('Body')).toContain(completed.galleryUrl)

    const exit = once(service, 'exit')
    service.kill('SIGTERM')
    expect(await exit).toEqual([0, null])
  }, 60_000)
})
