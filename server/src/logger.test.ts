import { describe, expect, it } from 'vitest'

import { describeError } from './logger.js'

describe('describeError', () => {
  it('when a storage error names a photo (a path or a key), then the session id in it is left out', () => {
    const error = Object.assign(
      new Error("ENOENT: no such file or directory, open '/srv/bucket/sessions/Zt5oP1vC9sDk3MwE7aRgQh/copies/f2LhN6cV0bXq8JyT4kWmSe.jpg'"),
      {
        cause: new Error('stored photo sessions/Zt5oP1vC9sDk3MwE7aRgQh/a.jpg is not the one completion recorded'),
      },
    )
    const logged = JSON.stringify(describeError(error))
    expect(logged).not.toContain('Zt5oP1vC9sDk3MwE7aRgQh')
    expect(logged).toContain("open '/srv/bucket/sessions/…/copies/….jpg'")
    expect(logged).toContain('stored photo sessions/…/a.jpg')
  })

  it('when a connection drops mid-query (no SQLSTATE), then no value of the statement is logged', () => {
    // As knex words it: the statement with its values written in, then the driver's message.
    const error = Object.assign(
      new Error(
        `select "c0".* from "session_guest" as "c0" where (lower(email) in ('zoe.quinn@example.org')) or "c0"."phone" in ('+14155550123') or "c0"."first_name" = 'Zoë' or "c0"."session_id" = 'Zt5oP1vC9sDk3MwE7aRgQh' - Connection terminated unexpectedly`,
      ),
      { code: 'ECONNRESET' },
    )
    const logged = JSON.stringify(describeError(new Error('request failed', { cause: error })))
    for (const value of ['zoe.quinn@example.org', '+14155550123', 'Zoë', 'Zt5oP1vC9sDk3MwE7aRgQh']) expect(logged).not.toContain(value)
    expect(logged).toContain('Connection terminated unexpectedly')
    expect(logged).toContain('"code":"ECONNRESET"')
  })

  it('when a message quotes an address, a phone or a gallery link outside a statement, then each is masked', () => {
    const logged = JSON.stringify(
      describeError(new Error('could not send to zoe@example.org or +447700900123: https://photos.example.com/g/Zt5oP1vC9sDk3MwE7aRgQh')),
    )
    expect(logged).not.toMatch(/zoe@example\.org|447700900123|Zt5oP1vC9sDk3MwE7aRgQh/)
    expect(logged).toContain('https://photos.example.com/g/…')
  })
})
