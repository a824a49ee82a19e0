/**
 * The service under fuzzing, in a process of its own (forked by `service.ts`), so that a request
 * that kills it shows as a dead process rather than taking the test runner down with it.
 *
 * Started as `test/support/server-process.ts` starts it (configured from the environment), then
 * seeded with real data so that the fuzzer reaches real rows as well as garbage: a public event with
 * two sets, a private event, a live gallery made the way production makes one (registration,
 * presigned uploads of real JPEGs, completion), active, cancelled and empty-completed sessions, a
 * booth key and a revoked one, and a presigned upload target. Sends `{ type: 'ready', url, refs }`
 * over IPC, and answers `{ type: 'rss' }` with `{ type: 'rss', rss }` (also the liveness ping).
 */
import { createClient } from '@photobooth/sdk'
import { loadSettings } from '@photobooth/server/config'
import { createLogger } from '@photobooth/server/logger'
import { createBoothKey, revokeBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { startServer } from '@photobooth/server/server'

import { seedEvent, seedSession } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import type { FromService, Refs, ToService } from './protocol.js'

const settings = loadSettings(process.env)
const running = await startServer({
  settings: { ...settings, port: 0, host: '127.0.0.1', seedDemo: false },
  logger: createLogger({ silent: true }),
})
// startServer answers with `localhost`; the fuzzer talks to the address it listens on.
const url = running.url.replace('//localhost:', '//127.0.0.1:')

async function seed(): Promise<Refs> {
  const { event, sets } = await seedEvent(running.orm, { sets: 2 })
  const { event: privateEvent } = await seedEvent(running.orm, { isPrivate: true })
  const set = sets[0]!
  const key = await createBoothKey(running.orm.em.fork(), 'Fuzz booth')
  const revoked = await createBoothKey(running.orm.em.fork(), 'Revoked fuzz booth')
  await revokeBoothKey(running.orm.em.fork(), revoked.id)

  const kiosk = createClient({ baseUrl: url })
  const booth = createClient({ baseUrl: url, boothKey: key.key })
  const guests = [
    { name: 'Zoë O’Brien', email: 'zoe@example.org' },
    { name: 'Grace Hopper', phone: '(415) 555-2671' },
  ]
  const live = await kiosk.kiosk.registerGuests({ params: { setId: set.id }, body: { guests } })
  const images = [makeJpeg(24, 16, 1), makeJpeg(16, 24, 2)]
  const { uploads } = await booth.booth.createUploads({ params: { sessionId: live.id }, body: { count: images.length } })
  for (const [index, upload] of uploads.entries()) {
    const response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: images[index] })
    if (!response.ok) throw new Error(`seed upload failed: ${response.status} ${await response.text()}`)
  }
  const completed = await booth.booth.complete({ params: { sessionId: live.id }, body: { photos: uploads.map((upload) => upload.key) } })

  const active = await kiosk.kiosk.registerGuests({ params: { setId: set.id }, body: { guests: [{ name: 'Ada Lovelace', email: 'ada@example.org' }] } })
  const {
    uploads: [target],
  } = await booth.booth.createUploads({ params: { sessionId: active.id }, body: { count: 1 } })
  const cancelled = await seedSession(running.orm, set.id, { status: 'cancelled' })
  const empty = await seedSession(running.orm, set.id, { status: 'completed', photos: 0 })
  const uploadUrl = new URL(target!.url)

  return {
    eventSlug: event.slug,
    eventId: event.id,
    privateEventSlug: privateEvent.slug,
    setSlug: set.slug,
    setId: set.id,
    otherSetId: sets[1]!.id,
    liveSession: live.id,
    photoId: completed.photos[0]!.id,
    photoKey: uploads[0]!.key,
    activeSession: active.id,
    cancelledSession: cancelled.id,
    emptySession: empty.id,
    boothKey: key.key,
    revokedBoothKey: revoked.key,
    uploadKey: target!.key,
    uploadQuery: uploadUrl.search.slice(1),
  }
}

const refs = await seed()
const send = (message: FromService) => process.send?.(message)
process.on('message', (message: ToService) => {
  if (message.type === 'rss') send({ type: 'rss', rss: process.memoryUsage.rss() })
})
// The parent going away (a killed test run) must not leave this process behind.
process.on('disconnect', () => process.exit(0))
send({ type: 'ready', url, refs })
