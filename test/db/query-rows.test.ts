/**
 * Raw queries' rows checked against their schemas (server/src/db/query.ts): a query whose SQL answers
 * a column of another type or name than its schema says fails loudly, naming the query and the
 * column, never a value of the row (rows hold guests' names and addresses).
 */
import { loadSettings } from '@photobooth/server/config'
import { Fault } from '@photobooth/server/errors'
import { checkParams, checkRows, query, run, statement } from '@photobooth/server/db/query'
import { GALLERY_QUERIES, PHOTO_FILE_QUERIES } from '@photobooth/server/modules/gallery/gallery.queries'
import { FORGET_SESSIONS } from '@photobooth/server/modules/idempotency/idempotency.queries'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'

/** Schemas made of the service's own pieces (this package has no zod of its own): a strict object, a number, a text. */
const PHOTO = GALLERY_QUERIES.photos.row
const row = (shape: Parameters<typeof PHOTO.extend>[0]) => PHOTO.pick({}).extend(shape)
const number = PHOTO.shape.size_bytes
const text = PHOTO.shape.storage_key

let app: TestServer
beforeAll(async () => {
  app = await startTestServer()
})
afterAll(async () => {
  await app?.stop()
})

/** The rejection of a promise, which must be one. */
async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(error).toBeInstanceOf(Fault)
  return error as Error
}

describe('raw query rows', () => {
  it('when a column comes back as another type than its schema says, then the run fails naming the query and the column, without the value', async () => {
    const email = 'ana.maria@example.org'
    const wrongType = query('test.wrongType', `select ?::text as email, 'x'::text as count`, row({ email: text, count: number }))
    const error = await refusal(run(app.orm.em.fork(), wrongType, [email]))
    expect(error.message).toContain('test.wrongType')
    expect(error.message).toContain('column count')
    expect(error.message).toContain('expected number')
    expect(error.message).not.toContain(email)
    expect(error.message).not.toContain("'x'")
    expect(JSON.stringify(error)).not.toContain(email)
  })

  it('when a column comes back under another name, then the run fails naming the column missing and the one unexpected', async () => {
    const renamed = query('test.renamed', `select ?::text as address`, row({ email: text }))
    const error = await refusal(run(app.orm.em.fork(), renamed, ['guest@example.org']))
    expect(error.message).toMatch(/test\.renamed.*column email/)
    expect(error.message).not.toContain('guest@example.org')
    const extra = await refusal(
      run(app.orm.em.fork(), query('test.extra', `select 1 as a, ?::text as b`, row({ a: number })), ['guest@example.org']),
    )
    expect(extra.message).toContain('unexpected column b')
    expect(extra.message).not.toContain('guest@example.org')
  })

  it('when a statement said to answer nothing answers a row, then the run fails', async () => {
    const error = await refusal(run(app.orm.em.fork(), statement('test.statement', 'select 1 as one')))
    expect(error.message).toContain('test.statement')
  })

  it('when one of the service’s own queries drifts from its schema (a count read as text, a nullable column), then it fails on the real rows', async () => {
    const { sessionId } = await makeLiveGallery(app)
    // The service's own statement and schema answer its rows.
    const rows = await run(app.orm.em.fork(), GALLERY_QUERIES.photos, [[sessionId]])
    expect(rows).toHaveLength(3)
    // The same schema over SQL that answers size_bytes as PostgreSQL's bigint (a string to node-pg).
    const asBigint = query(
      'gallery.photos',
      GALLERY_QUERIES.photos.sql.replace('size_bytes,', 'size_bytes::bigint as size_bytes,'),
      GALLERY_QUERIES.photos.row,
    )
    const error = await refusal(run(app.orm.em.fork(), asBigint, [[sessionId]]))
    expect(error.message).toMatch(/gallery\.photos.*column size_bytes.*expected number/)
    // A column the schema says is never null, read where it is (a photo's ETag before a row has one).
    const nullable = query(
      'gallery.photoFiles',
      PHOTO_FILE_QUERIES.all.sql.replace('p.etag,', 'null::text as etag,'),
      PHOTO_FILE_QUERIES.all.row,
    )
    await run(app.orm.em.fork(), nullable, [sessionId])
    const strict = query('gallery.photoFiles', nullable.sql, PHOTO_FILE_QUERIES.all.row.extend({ etag: text }))
    expect((await refusal(run(app.orm.em.fork(), strict, [sessionId]))).message).toContain('column etag')
  })

  it('when a query is given fewer or more parameters than its placeholders, then it is refused before it runs; a list is one parameter', async () => {
    // The erasure once forgot its replays with the patterns alone: bound where the 410's body goes.
    const error = await refusal(run(app.orm.em.fork(), FORGET_SESSIONS, [['%one%', '%two%']]))
    expect(error.message).toBe('Query idempotency.forgetSessions takes 2 parameters, given 1')
    expect(error.message).not.toContain('%one%')
    expect(() => checkParams(FORGET_SESSIONS, ['{}', ['%one%', '%two%']])).not.toThrow()
    expect(await run(app.orm.em.fork(), FORGET_SESSIONS, ['{}', ['%no-such-session-id%']])).toEqual([])
  })

  it('when rows are checked `first` (production), then only the first row is; `every` (development and tests) checks each', () => {
    const counts = query('test.counts', 'select 1', row({ count: number }))
    const rows = [{ count: 1 }, { count: '2' }]
    expect(checkRows(counts, rows, 'first')).toBe(rows)
    expect(() => checkRows(counts, rows, 'every')).toThrow(
      /test\.counts answered a row \(#1\).*column count, invalid_type, expected number/,
    )
    expect(() => checkRows(counts, rows, 'every')).not.toThrow(/'2'/)
    expect(loadSettings({ MODE: 'development', DATA_DIR: '.data' }).rowChecks).toBe('every')
    expect(loadSettings({ MODE: 'development', ROW_CHECKS: 'first' }).rowChecks).toBe('first')
  })
})
