import { readFile } from 'node:fs/promises'

import { ErrorCode } from '@photobooth/sdk/contract'
import {
  decodeErrorBody,
  ERROR_CODE_LIST,
  ERROR_CODE_TABLE,
  errorCodeOf,
  type ErrorCodeOfStatus,
  type PhotoBoothClient,
  type RouteErrorCode,
} from '@photobooth/sdk'
import { describe, expect, expectTypeOf, it } from 'vitest'

type Register = PhotoBoothClient['kiosk']['registerGuests']

describe('the stable error codes', () => {
  it('when listed, then lower_snake, unique, one status each, and the zod enum is the same list', () => {
    expect(new Set(ERROR_CODE_LIST).size).toBe(ERROR_CODE_LIST.length)
    for (const code of ERROR_CODE_LIST) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/)
      expect(ERROR_CODE_TABLE[code].status).toBeGreaterThanOrEqual(400)
      expect(ERROR_CODE_TABLE[code].meaning.length).toBeGreaterThan(0)
    }
    expect(ErrorCode.options).toEqual(ERROR_CODE_LIST)
  })

  it('when docs/api.md is read, then its table lists every code with its status', async () => {
    const doc = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8')
    for (const code of ERROR_CODE_LIST) expect(doc).toContain(`| \`${code}\` | ${ERROR_CODE_TABLE[code].status} |`)
  })

  it("when an answer is decoded, then data.code is its code (a schema failure's too) and the text is the body's", () => {
    const phone = decodeErrorBody(
      { error: "This doesn't look like a phone number: call me", code: 'invalid_phone', field: 'guests.1.phone' },
      { status: 400 },
      { BAD_REQUEST: { status: 400 } },
    )
    expect(phone.message).toBe("This doesn't look like a phone number: call me")
    expect(phone.data).toEqual({ code: 'invalid_phone', field: 'guests.1.phone' })
    expect(errorCodeOf(phone)).toBe('invalid_phone')
    const invalid = decodeErrorBody(
      // The spec's validator shape carries no code: the SDK names it.
      { success: false, error: { name: 'ZodError', message: '[]' } },
      { status: 400 },
      { BAD_REQUEST: { status: 400 } },
    )
    expect(invalid.data).toEqual({ issues: [], code: 'invalid_input' })
    // The plain-text answers have no code on the wire: the SDK names them by their status.
    expect(errorCodeOf(decodeErrorBody('Unauthorized', { status: 401 }))).toBe('unauthorized')
    expect(errorCodeOf(decodeErrorBody('Not Found', { status: 404 }))).toBe('not_found')
    expect(errorCodeOf(decodeErrorBody('Bad Gateway', { status: 502 }))).toBeUndefined()
    expect(errorCodeOf(new Error('x'))).toBeUndefined()
  })

  it("when typed, then a route's codes are those of the statuses it declares", () => {
    expectTypeOf<'invalid_phone' | 'missing_contact' | 'no_such_set' | 'rate_limited'>().toExtend<RouteErrorCode<Register>>()
    expectTypeOf<'insufficient_role'>().not.toExtend<RouteErrorCode<Register>>()
    expectTypeOf<ErrorCodeOfStatus<404>>().toExtend<ErrorCode>()
    type Context = PhotoBoothClient['kiosk']['getContext']
    expectTypeOf<'no_such_set'>().toExtend<RouteErrorCode<Context>>()
    expectTypeOf<'idempotency_in_flight' | 'rate_limited'>().not.toExtend<RouteErrorCode<Context>>()
  })
})
