/**
 * Revocation reaches uploads (issue 22): every upload URL is recorded with the booth key that asked
 * for it. Once that key is revoked, the local bucket refuses the URL (whatever its 15-minute expiry
 * says), and completion takes no photo uploaded through it (as not stored), which is the gate on S3,
 * whose PUT cannot be asked.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let owner: StaffSession
let setId: string
beforeAll(async () => {
  owner = await signedInStaff(app)
  setId = (await seedEvent(app.orm)).sets[0]!.id
})

type Upload = { key: string; url: string; method: string; headers: Record<string, string> }

const asBooth = (key: string, path: string, body: unknown) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

async function uploadsFor(boothKey: string, sessionId: string, count: number): Promise<Upload[]> {
  return (await (await asBooth(boothKey, `/booth/sessions/${sessionId}/uploads`, { count })).json()).uploads
}

const put = (upload: Upload) => fetch(upload.url, { method: 'PUT', headers: upload.headers, body: makeJpeg(24, 16, 1) })

const revoke = (boothKey: string) => staffFetch(app, owner, `/staff/booth-keys/${boothKey.split('_')[1]}/revoke`, { method: 'POST' })

describe('uploads of a revoked booth key', () => {
  it('when the key is revoked, then the URLs it was given are refused by the local bucket, and nothing is stored', async () => {
    const key = await createTestBoothKey(app, 'Stolen booth')
    const sessionId = await registerGuests(app, setId, [{ name: 'Ada Lovelace', email: 'ada.revoked@example.org' }])
    const [before, after] = await uploadsFor(key, sessionId, 2)
    expect((await put(before!)).status).toBe(200)
    expect((await revoke(key)).status).toBe(200)
    const refused = await put(after!)
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain(
      '<Code>AccessDenied</Code><Message>The booth key that asked for this upload has been revoked</Message>',
    )
    const stored = await fetch(`${app.url}/photos/${after!.key}`)
    expect(stored.status).toBe(404)
  })

  it('when another booth completes the session with photos a revoked key uploaded, then 422 names them as not stored, and the session stays active; its own photos complete it', async () => {
    const stolen = await createTestBoothKey(app, 'Stolen booth')
    const live = await createTestBoothKey(app, 'Live booth')
    const sessionId = await registerGuests(app, setId, [{ name: 'Grace Hopper', email: 'grace.revoked@example.org' }])
    const [planted] = await uploadsFor(stolen, sessionId, 1)
    expect((await put(planted!)).status).toBe(200)
    expect((await revoke(stolen)).status).toBe(200)
    const [own] = await uploadsFor(live, sessionId, 1)
    expect((await put(own!)).status).toBe(200)

    const refused = await asBooth(live, `/booth/sessions/${sessionId}/complete`, { photos: [planted!.key, own!.key] })
    expect([refused.status, await refused.json()]).toEqual([
      422,
      { error: 'Photo keys not in storage', missing: [planted!.key], code: 'photo_keys_missing' },
    ])
    const completed = await asBooth(live, `/booth/sessions/${sessionId}/complete`, { photos: [own!.key] })
    expect(completed.status).toBe(200)
  })
})
