/**
 * Booths claim sessions (issue 33): the next of a set's queue, or a named one, held for a while and
 * out of the other booths' queues meanwhile, visible to staff; a claim lapses or is released. Through
 * HTTP with the SDK's booth client, on a server whose clock the test moves.
 */
import { createBoothClient, isDefinedError, safe, type BoothClient } from '@photobooth/sdk/booth'
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { signedInStaff, staffFetch } from '../support/staff.js'

let clock = Date.parse('2026-07-01T18:00:00Z')
const app = withTestServer({}, { now: () => new Date(clock) })

let first: BoothClient
let second: BoothClient
beforeAll(async () => {
  first = createBoothClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app, 'Mirror booth') })
  second = createBoothClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app, 'Wall booth') })
})

async function queueOf(count: number): Promise<{ setId: string; sessions: string[] }> {
  const { sets } = await seedEvent(app.orm)
  const setId = sets[0]!.id
  const sessions = []
  for (let index = 0; index < count; index++) {
    // Registered a second apart, as guests come: the queue's order is their registration's.
    clock += 1000
    sessions.push(await registerGuests(app, setId, [{ name: `Guest ${index}`, email: `g${index}@example.org` }]))
  }
  return { setId, sessions }
}

const ids = (answer: { sessions: { id: string }[] }) => answer.sessions.map((session) => session.id)

describe('claiming sessions', () => {
  it('when booths claim the next session, then each gets the oldest nobody holds, in the queue’s order, and the others’ queues leave it out', async () => {
    const { setId, sessions } = await queueOf(4)
    const a = await first.booth.claimNext({ params: { setId }, body: {} })
    expect(a.session).toMatchObject({ id: sessions[0], label: 'Guest 0', claim: { holder: null, expiresAt: clock + 900_000 } })
    // The same booth's next group gets the next session, not its own claim again.
    const b = await first.booth.claimNext({ params: { setId }, body: {} })
    expect(b.session?.id).toBe(sessions[1])
    const c = await second.booth.claimNext({ params: { setId }, body: { holder: 'Wall 1', ttlSeconds: 60 } })
    expect(c.session).toMatchObject({ id: sessions[2], claim: { holder: 'Wall 1', expiresAt: clock + 60_000 } })

    expect(ids(await second.booth.listQueue({ setId }))).toEqual([sessions[0], sessions[1], sessions[3]].slice(2))
    expect(ids(await second.booth.listQueue({ setId, holder: 'Wall 1' }))).toEqual([sessions[2], sessions[3]])
    expect(ids(await first.booth.listQueue({ setId }))).toEqual([sessions[0], sessions[1], sessions[3]])
  })

  it('when ten claims of the next session arrive at once, then ten different sessions are claimed', async () => {
    const { setId, sessions } = await queueOf(10)
    const claimed = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 ? first : second).booth.claimNext({ params: { setId }, body: { holder: `Booth ${index}` } }),
      ),
    )
    expect(new Set(claimed.map((answer) => answer.session?.id))).toEqual(new Set(sessions))
    expect((await first.booth.claimNext({ params: { setId }, body: { holder: 'Late' } })).session).toBeNull()
  })

  it('when a claim lapses, then the session is back in every queue and another booth may take it; a renewal by its holder keeps it', async () => {
    const { setId, sessions } = await queueOf(2)
    await first.booth.claimNext({ params: { setId }, body: { holder: 'A', ttlSeconds: 60 } })
    clock += 50_000
    // Renewed by its holder (a booth that restarted claims its session again).
    expect(await first.booth.claim({ params: { sessionId: sessions[0]! }, body: { holder: 'A', ttlSeconds: 60 } })).toMatchObject({
      claim: { expiresAt: clock + 60_000 },
    })
    clock += 50_000
    const [refused] = await safe(second.booth.claim({ params: { sessionId: sessions[0]! }, body: {} }))
    expect(isDefinedError(refused) && [refused.status, refused.data.code]).toEqual([409, 'session_claimed'])
    expect(ids(await second.booth.listQueue({ setId }))).toEqual([sessions[1]])
    clock += 11_000
    expect(ids(await second.booth.listQueue({ setId }))).toEqual(sessions)
    expect((await second.booth.claimNext({ params: { setId }, body: {} })).session?.id).toBe(sessions[0])
  })

  it('when a booth releases its claim, then the session goes back to the queue in its place; another booth cannot release it', async () => {
    const { setId, sessions } = await queueOf(2)
    await first.booth.claim({ params: { sessionId: sessions[1]! }, body: { holder: 'QR' } })
    const [refused] = await safe(second.booth.release({ params: { sessionId: sessions[1]! }, body: {} }))
    expect(isDefinedError(refused) && refused.status).toBe(409)
    expect(ids(await second.booth.listQueue({ setId }))).toEqual([sessions[0]])
    expect(await first.booth.release({ params: { sessionId: sessions[1]! }, body: { holder: 'QR' } })).toEqual({
      id: sessions[1],
      released: true,
    })
    expect(await first.booth.release({ params: { sessionId: sessions[1]! }, body: { holder: 'QR' } })).toEqual({
      id: sessions[1],
      released: false,
    })
    expect(ids(await second.booth.listQueue({ setId }))).toEqual(sessions)
  })

  it('when a claimed session is completed or cancelled, then claiming it answers 409 session_not_active', async () => {
    const { sessions } = await queueOf(1)
    await first.booth.claim({ params: { sessionId: sessions[0]! }, body: {} })
    await first.booth.cancel({ params: { sessionId: sessions[0]! } })
    const [error] = await safe(first.booth.claim({ params: { sessionId: sessions[0]! }, body: {} }))
    expect(isDefinedError(error) && [error.status, error.data.code]).toEqual([409, 'session_not_active'])
  })

  it('when a claim’s answer is lost, then the same call sent again with its Idempotency-Key answers the same session', async () => {
    const { setId, sessions } = await queueOf(3)
    const context = { idempotencyKey: '5b7e3f0c-9a41-4c7e-8d2b-6f1a0e9c3d57' }
    const once = await first.booth.claimNext({ params: { setId }, body: { holder: 'Replay' } }, { context })
    const again = await first.booth.claimNext({ params: { setId }, body: { holder: 'Replay' } }, { context })
    expect([once.session?.id, again.session?.id]).toEqual([sessions[0], sessions[0]])
    expect((await first.booth.claimNext({ params: { setId }, body: { holder: 'Replay' } })).session?.id).toBe(sessions[1])
  })

  it('when staff read a claimed session, then they see which booth holds it and until when', async () => {
    const { setId, sessions } = await queueOf(1)
    await second.booth.claimNext({ params: { setId }, body: { holder: 'Wall 2' } })
    const staff = await signedInStaff(app)
    const answer = (await (await staffFetch(app, staff, `/staff/sessions/${sessions[0]}`)).json()) as { claim?: unknown }
    expect(answer.claim).toEqual({
      boothKeyId: expect.any(String),
      boothName: 'Wall booth',
      holder: 'Wall 2',
      claimedAt: clock,
      expiresAt: clock + 900_000,
    })
  })
})
