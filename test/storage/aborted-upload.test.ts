/**
 * A client that gives up on an upload (issue 35, item 12): curl sending a camera's photo slowly
 * (`--limit-rate`), killed midway, as a booth on a venue's Wi-Fi is when its operator closes it. Its
 * request's line says 499 and aborted, a line at info says the upload was aborted by the client, and
 * nothing calls it an outage of the database (it was logged "database unavailable: answered 503" at
 * warn and counted as a database error).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createLogger } from '@photobooth/server/logger'
import { createClient } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { makeCameraJpeg } from '../support/camera.js'
import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { until } from '../support/until.js'

const METRICS_TOKEN = 'aborted-upload-metrics-token'
const lines: string[] = []
const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)
const app = withTestServer({ metricsToken: METRICS_TOKEN }, { logger: createLogger({ write: (line) => void lines.push(line) }) })

let folder: string
let photo: string
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'photobooth-aborted-'))
  photo = join(folder, 'camera.jpg')
  await writeFile(photo, await makeCameraJpeg({ seed: 3 }))
})
afterAll(() => rm(folder, { recursive: true, force: true }))

/** Files of the session's folder in the bucket, partial uploads included. */
const inBucket = async (sessionId: string) => {
  if (app.config.storage.kind !== 'local') throw new Error('the test server has a local bucket')
  return readdir(join(app.config.storage.root, 'sessions', sessionId)).catch(() => [] as string[])
}

describe('an upload the client aborts', () => {
  it('when curl sending a camera photo at 200 KB/s is killed midway, then its line says 499 aborted, an info line says the client aborted the upload, and no outage is logged or counted', async () => {
    const { sets } = await seedEvent(app.orm)
    const boothKey = await createTestBoothKey(app)
    const sessionId = await registerGuests(app, sets[0]!.id, [{ name: 'Ada Lovelace', email: 'ada.aborted@example.org' }])
    const booth = createClient({ baseUrl: app.url, boothKey })
    const { uploads } = await booth.booth.createUploads({ params: { sessionId }, body: { count: 1 } })
    const upload = uploads[0]!
    lines.length = 0

    const curl = spawn('curl', [
      '-sS',
      '-T',
      photo,
      '--limit-rate',
      '200k',
      '-H',
      'Content-Type: image/jpeg',
      '-H',
      'If-None-Match: *',
      upload.url,
    ])
    // Killed once the service is writing its bytes (its partial file is in the bucket), as the operator would after a few seconds.
    await until(
      () => inBucket(sessionId),
      (names) => names.some((name) => name.startsWith('.upload-')),
      10_000,
    )
    curl.kill('SIGKILL')
    await once(curl, 'exit')

    const line = await until(
      async () => records().find((record) => record.message === 'request' && record.route === '/photos/*key'),
      (found) => found !== undefined,
      10_000,
    )
    expect(line).toMatchObject({ method: 'PUT', status: 499, aborted: true })
    // The request's line is written when the connection closes; the handler's own follows once the upload is cleaned away.
    const ofRequest = await until(
      async () => records().filter((record) => record.requestId === line!.requestId),
      (found) => found.length >= 2,
      10_000,
    )
    expect(ofRequest.map((record) => [record.level, record.message]).sort()).toEqual([
      ['info', 'request'],
      ['info', 'upload aborted by the client before its last byte: nothing stored'],
    ])
    expect(lines.join('')).not.toMatch(/unavailable|answered 503/)
    // Nothing is kept of it: no photo, no partial file.
    await until(
      () => inBucket(sessionId),
      (names) => names.length === 0,
      10_000,
    )
    const metrics = await (await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
    expect(metrics).not.toMatch(/photobooth_dependency_errors_total\{dependency="database"\} [1-9]/)
  })
})
