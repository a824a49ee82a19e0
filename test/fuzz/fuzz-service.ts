/**
 * The service under fuzzing, in a process of its own (forked by `service.ts`), so that a request
 * that kills it shows as a dead process rather than taking the test runner down with it.
 *
 * Started as `test/support/drill-service.ts` starts it (configured from the environment), then
 * seeded with real data so that the fuzzer reaches real rows as well as garbage: a public event with
 * two sets, a private event, a live gallery made the way production makes one (registration,
 * presigned uploads of real JPEGs, completion), active, cancelled and empty-completed sessions, a
 * booth key and a revoked one, a presigned upload target, and two staff members signed in. Staff
 * changes get rows of their own (see `seedStaff`). Sends `{ type: 'ready', url, refs }` over
 * IPC, and answers `{ type: 'rss' }` with `{ type: 'rss', rss }` (also the liveness ping).
 */
import { createClient } from '@photobooth/sdk'
import { loadSettings } from '@photobooth/server/config'
import { createLogger } from '@photobooth/server/logger'
import { createBoothKey, revokeBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { startServer } from '@photobooth/server/server'

import { seedEvent, seedSession } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { signedInStaff, type StaffSession } from '../support/staff.js'
import type { FromService, Refs, ToService } from './protocol.js'

const settings = loadSettings(process.env)
const running = await startServer({
  settings: { ...settings, port: 0, host: '127.0.0.1', seedDemo: false },
  logger: createLogger({ silent: true }),
})
// startServer answers with `localhost`; the fuzzer talks to the address it listens on.
const url = running.url.replace('//localhost:', '//127.0.0.1:')

const kiosk = createClient({ baseUrl: url })
const key = await createBoothKey(running.orm.em.fork(), 'Fuzz booth')
const booth = createClient({ baseUrl: url, boothKey: key.key })

type Guest = { name: string; email?: string; phone?: string }

/** A live gallery made as production makes one: registration, presigned uploads of real JPEGs, completion. */
async function liveGallery(setId: string, guests: Guest[]) {
  const session = await kiosk.kiosk.registerGuests({ params: { setId }, body: { guests } })
  const images = [makeJpeg(24, 16, 1), makeJpeg(16, 24, 2)]
  const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: images.length } })
  for (const [index, upload] of uploads.entries()) {
    const response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: images[index] })
    if (!response.ok) throw new Error(`seed upload failed: ${response.status} ${await response.text()}`)
  }
  const completed = await booth.booth.complete({ params: { sessionId: session.id }, body: { photos: uploads.map((upload) => upload.key) } })
  return { id: session.id, keys: uploads.map((upload) => upload.key), photos: completed.photos }
}

const activeSession = (setId: string, guest: Guest) => kiosk.kiosk.registerGuests({ params: { setId }, body: { guests: [guest] } })

async function seed(): Promise<Refs> {
  const { event, sets } = await seedEvent(running.orm, { sets: 2 })
  const { event: privateEvent } = await seedEvent(running.orm, { isPrivate: true })
  const set = sets[0]!
  const revoked = await createBoothKey(running.orm.em.fork(), 'Revoked fuzz booth')
  await revokeBoothKey(running.orm.em.fork(), revoked.id)

  const live = await liveGallery(set.id, [
    { name: 'Zoë O’Brien', email: 'zoe@example.org' },
    { name: 'Grace Hopper', phone: '(415) 555-2671' },
  ])
  const active = await activeSession(set.id, { name: 'Ada Lovelace', email: 'ada@example.org' })
  const {
    uploads: [target],
  } = await booth.booth.createUploads({ params: { sessionId: active.id }, body: { count: 1 } })
  const cancelled = await seedSession(running.orm, set.id, { status: 'cancelled' })
  const empty = await seedSession(running.orm, set.id, { status: 'completed', photos: 0 })
  const uploadUrl = new URL(target!.url)

  return {
    ...(await seedStaff(event.id)),
    revokedKeyId: revoked.id,
    eventSlug: event.slug,
    eventId: event.id,
    privateEventSlug: privateEvent.slug,
    setSlug: set.slug,
    setId: set.id,
    otherSetId: sets[1]!.id,
    liveSession: live.id,
    photoId: live.photos[0]!.id,
    photoKey: live.keys[0]!,
    activeSession: active.id,
    cancelledSession: cancelled.id,
    emptySession: empty.id,
    boothKey: key.key,
    revokedBoothKey: revoked.key,
    uploadKey: target!.key,
    uploadQuery: uploadUrl.search.slice(1),
  }
}

/** The token of a session cookie without its signature (`<token>.<signature>`, percent-encoded). */
const unsigned = (staff: StaffSession) => decodeURIComponent(staff.cookie.slice(staff.cookie.indexOf('=') + 1)).split('.')[0]!

/**
 * Two staff members, signed in once here through Better Auth's own sign-in (over HTTP it allows 10
 * a minute), and the rows that staff changes may name. The fuzzer's POST, PATCH and DELETE under
 * /staff never name the rows above, which every other operation reads: a cancelled active session,
 * a revoked booth key or a deleted event would turn the rest of the run into 409s, 401s and 404s.
 * Scratch rows may be renamed, cancelled and retried; doomed rows are deleted, each once (with
 * `force=true`: each doomed event and set has an active session, refused otherwise), and answer
 * 404 for the rest of the run, which it also wants. The fuzzer signs out only the second member's
 * session: ending the first would leave every later staff request at 401.
 */
async function seedStaff(eventId: string) {
  const staff = await signedInStaff(running, 'Fuzz Staff')
  const spare = await signedInStaff(running, 'Spare Fuzz Staff')
  // The lesser roles, whose requests meet each route's role check (403) or pass it.
  const manager = await signedInStaff(running, 'Fuzz Manager', 'manager')
  const staffOnly = await signedInStaff(running, 'Fuzz Staff Role', 'staff')
  const spareKey = await createBoothKey(running.orm.em.fork(), 'Spare fuzz booth')

  const scratch = await seedEvent(running.orm, { sets: 2 })
  const scratchSet = scratch.sets[0]!
  const doomedSet = scratch.sets[1]!
  const scratchLive = await liveGallery(scratchSet.id, [{ name: 'Hedy Lamarr', email: 'hedy@example.org', phone: '+1 415 555 2671' }])
  const scratchActive = await activeSession(scratchSet.id, { name: 'Alan Turing', email: 'alan@example.org' })
  const doomedSession = await liveGallery(scratchSet.id, [{ name: 'Katherine Johnson', email: 'kj@example.org' }])
  await activeSession(doomedSet.id, { name: 'Mary Jackson', phone: '(415) 555-2671' })
  const doomed = await seedEvent(running.orm)
  await liveGallery(doomed.sets[0]!.id, [{ name: 'Dorothy Vaughan', email: 'dv@example.org' }])
  await activeSession(doomed.sets[0]!.id, { name: 'Annie Easley', email: 'ae@example.org' })

  // The completion queued a gallery link per channel; with delivery off they stay pending, and one is made a failure to retry.
  const em = running.orm.em.fork()
  const messages = await em.execute<{ id: string }[]>('select id from outbox_message where session_id = ? order by channel', [
    scratchLive.id,
  ])
  if (messages.length !== 2) throw new Error(`expected an email and an SMS message, found ${messages.length}`)
  const [failed, pending] = messages as [{ id: string }, { id: string }]
  await em.execute("update outbox_message set status = 'failed', attempts = 5, last_error = 'seeded failure' where id = ?", [failed.id])

  // A real cursor, and proof that the cookie signs in.
  const page = await fetch(`${url}/staff/events/${eventId}/sessions?limit=1`, { headers: { cookie: staff.cookie } })
  const { nextCursor } = (await page.json()) as { nextCursor?: string | null }
  if (!page.ok || !nextCursor) throw new Error(`the seeded staff session could not list sessions: ${page.status}`)

  return {
    origin: staff.headers.origin,
    staffMemberId: staff.memberId,
    staffEmail: staff.email,
    staffPassword: staff.password,
    staffCookie: staff.cookie,
    staffToken: unsigned(staff),
    spareMemberId: spare.memberId,
    spareCookie: spare.cookie,
    spareToken: unsigned(spare),
    managerCookie: manager.cookie,
    staffRoleCookie: staffOnly.cookie,
    sessionsCursor: nextCursor,
    scratchEventId: scratch.event.id,
    scratchSetId: scratchSet.id,
    scratchLiveSession: scratchLive.id,
    scratchActiveSession: scratchActive.id,
    failedMessageId: failed.id,
    pendingMessageId: pending.id,
    spareKeyId: spareKey.id,
    doomedEventId: doomed.event.id,
    doomedSetId: doomedSet.id,
    doomedSession: doomedSession.id,
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
