import { ApiError, createClient, isDefinedError, ORPCError, safe } from '@photobooth/sdk'
import { describe, expect, it } from 'vitest'

import { seedEvent, withTestServer } from '../support/harness.js'

const app = withTestServer()

describe('the SDK against a live server', () => {
  it('when a kiosk loads its context and registers guests, then typed answers come back', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const client = createClient({ baseUrl: app.url })

    const context = await client.kiosk.getContext({ eventSlug: event.slug, setSlug: sets[0]!.slug })
    expect(context).toEqual({
      set: sets[0],
      event: { id: event.id, slug: event.slug, name: event.name, phoneCountry: 'US', listGuestsByDefault: true },
    })

    const session = await client.kiosk.registerGuests({
      params: { setId: context.set.id },
      body: {
        guests: [
          { name: 'Ada Lovelace', email: 'ada@example.org' },
          { name: 'Grace', phone: '415 555 2671' },
        ],
      },
    })
    const status: 'active' = session.status
    expect(session).toEqual({ id: expect.any(String), label: 'Ada & Grace', status })
  })

  it('when an app reuses its own Idempotency-Key for another registration, then the 422 is a defined error of the route, and nothing is written', async () => {
    const { sets } = await seedEvent(app.orm)
    const client = createClient({ baseUrl: app.url })
    const register = (name: string) =>
      client.kiosk.registerGuests(
        { params: { setId: sets[0]!.id }, body: { guests: [{ name, email: 'key@example.org' }] } },
        { context: { idempotencyKey: `reused-${sets[0]!.id}` } },
      )
    const first = await register('Ada')
    const [error] = await safe(register('Grace'))
    if (!isDefinedError(error) || error.code !== 'UNPROCESSABLE_CONTENT') throw new Error(`expected a defined 422, got ${String(error)}`)
    expect([error.status, error.message]).toEqual([
      422,
      'This Idempotency-Key was already used for a request with another body: a new request needs a new key',
    ])
    const rows = await app.orm.em.fork().execute<{ id: string }[]>('select id from session where set_id = ?', [sets[0]!.id])
    expect(rows.map((row) => row.id)).toEqual([first.id])
  })

  it('when a booth key is refused (the plain text `Unauthorized`), then the declared error still carries its code, as its type says', async () => {
    const booth = createClient({ baseUrl: app.url, boothKey: 'pbk_nope_nope' })
    const [error] = await safe(booth.booth.listEvents())
    if (!isDefinedError(error)) throw new Error(`expected a defined 401, got ${String(error)}`)
    expect([error.status, error.code, error.message, error.data.code]).toEqual([401, 'UNAUTHORIZED', 'Unauthorized', 'unauthorized'])
  })

  it('when an app also has oRPC’s own errors, then isDefinedError and safe take them as oRPC does', async () => {
    const own = new ORPCError('NOT_FOUND', { defined: true, data: { id: 'x' } })
    const undeclared = new ORPCError('NOT_FOUND', { data: { id: 'x' } })
    expect([isDefinedError(own), isDefinedError(undeclared), isDefinedError(new Error('x')), isDefinedError(undefined)]).toEqual([
      true,
      false,
      false,
      false,
    ])
    const [error, , isDefined] = await safe(Promise.reject(own))
    expect([error, isDefined]).toEqual([own, true])
  })

  it('when a slug names nothing, then a typed NOT_FOUND error carries the API text', async () => {
    const client = createClient({ baseUrl: app.url })
    const [error, data, isDefined] = await safe(client.kiosk.getContext({ eventSlug: 'nope', setSlug: 'nope' }))
    expect(data).toBeUndefined()
    expect(isDefined).toBe(true)
    expect(error).toBeInstanceOf(ORPCError)
    if (!isDefinedError(error)) throw new Error('expected a defined error')
    expect(error.code).toBe('NOT_FOUND')
    expect(error.status).toBe(404)
    expect(error.message).toBe('no such set')
  })

  it('when a route answers an error it declares, then it narrows to exactly the route’s codes, an ApiError with its request id', async () => {
    const client = createClient({ baseUrl: app.url })
    const [error] = await safe(client.kiosk.getContext({ eventSlug: 'nope', setSlug: 'nope' }))
    if (!isDefinedError(error)) throw new Error('expected a defined error')
    expect(error).toBeInstanceOf(ApiError)
    // @ts-expect-error getContext declares no CONFLICT: the comparison does not compile.
    expect(error.code === 'CONFLICT').toBe(false)
    switch (error.code) {
      case 'NOT_FOUND':
        // The stable code, typed by the status: the route's 404s (`ErrorCodeOfStatus<404>`).
        expect(error.data).toEqual({ code: 'no_such_set' })
        break
      case 'BAD_REQUEST':
      case 'INTERNAL_SERVER_ERROR':
      case 'SERVICE_UNAVAILABLE':
        throw new Error(`unexpected ${error.code}`)
      default: {
        const unreachable: never = error
        throw new Error(`unreachable ${String(unreachable)}`)
      }
    }
    // The answer's own id, as the server logs it.
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(error.requestId).toBe(error.headers.get('x-request-id'))
  })

  it('when a guest has no contact, then a typed BAD_REQUEST error carries the guest message', async () => {
    const { sets } = await seedEvent(app.orm)
    const client = createClient({ baseUrl: app.url })
    const [error] = await safe(client.kiosk.registerGuests({ params: { setId: sets[0]!.id }, body: { guests: [{ name: 'Ada' }] } }))
    if (!isDefinedError(error)) throw new Error('expected a defined error')
    expect(error.code).toBe('BAD_REQUEST')
    expect(error.status).toBe(400)
    expect(error.message).toBe('Ada needs an email or a phone number')
  })

  it('when the body fails the schema, then the typed BAD_REQUEST error lists the issues', async () => {
    const { sets } = await seedEvent(app.orm)
    const client = createClient({ baseUrl: app.url })
    const [error] = await safe(client.kiosk.registerGuests({ params: { setId: sets[0]!.id }, body: { guests: [] } }))
    if (!isDefinedError(error) || error.code !== 'BAD_REQUEST') throw new Error('expected a defined BAD_REQUEST')
    expect(error.data?.issues).toEqual([expect.objectContaining({ code: 'too_small', path: ['guests'] })])
  })

  it('when the gallery is not live, then a typed NOT_FOUND "no such gallery"', async () => {
    const client = createClient({ baseUrl: `${app.url}/` })
    const [error] = await safe(client.gallery.getGallery({ sessionId: 'AAAAAAAAAAAAAAAAAAAAAA' }))
    expect(isDefinedError(error) && error.code === 'NOT_FOUND' && error.message).toBe('no such gallery')
  })
})
