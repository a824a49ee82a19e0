/**
 * The rules the house depends on (docs/architecture.md, "Rules a tool keeps") fail lint when broken:
 * each deliberate violation below, linted as the file it names, is refused with the rule's message,
 * and the same code where the rule allows it passes.
 */
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, expect, it } from 'vitest'

import { houseRules } from '../../eslint.house-rules.js'

const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [{ languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } }, ...houseRules],
})

/** The messages of the house's rules for `code` written in `file`. */
async function refusals(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file })
  return result!.messages.map((message) => message.message)
}

describe('the database rule', () => {
  it('when a service runs an inline SQL statement, then lint refuses it; the same statement in a *.queries.ts file passes', async () => {
    const inline = `export const touch = (em: { execute(sql: string): Promise<unknown> }) => em.execute('update event set updated_at = now() where id = 1')`
    expect(await refusals('server/src/modules/events/touch.service.ts', inline)).toEqual(
      expect.arrayContaining([expect.stringContaining('SQL lives in a *.queries.ts file')]),
    )
    expect(
      await refusals(
        'server/src/modules/events/touch.queries.ts',
        `export const TOUCH = 'update event set updated_at = now() where id = ?'`,
      ),
    ).toEqual([])
  })

  it('when SQL is a template, then lint refuses it too', async () => {
    expect(await refusals('server/src/http/health.ts', 'export const q = (t: string) => `select * from ${t}`')).toEqual([
      expect.stringContaining('SQL lives in'),
    ])
  })

  it('when SQL names a quoted table, recurses, locks, truncates, starts with a bracket or is joined from pieces, then lint refuses it; prose with the same words passes', async () => {
    const file = 'server/src/modules/events/touch.service.ts'
    for (const statement of [
      `'update "event" set updated_at = now() where id = ?'`,
      `'UPDATE public.event e SET updated_at = now()'`,
      '`with recursive chain(id) as (select id from event) select * from chain`',
      `'with "recent" as (select id from event) delete from event'`,
      `'lock table event in exclusive mode'`,
      `'lock event in share mode'`,
      `'truncate event'`,
      `'truncate table event, photo restart identity'`,
      `'(select id from event) union (select id from photo)'`,
      `'-- the newest first\\nselect id from event'`,
      `['update event', 'set updated_at = now()'].join(' ')`,
      `['select', 'id from event'].join(' ')`,
      `'update event' + ' set updated_at = now()'`,
      `'merge into event using photo on true when matched then do nothing'`,
      '(table: string) => `update ${table} set updated_at = now()`',
      '(table: string) => `truncate "${table}"`',
    ])
      expect(await refusals(file, `export const q = ${statement}`), statement).toEqual([expect.stringContaining('SQL lives in')])
    for (const prose of [
      `'Update the app to keep the queue'`,
      `'Truncate names longer than 80 characters'`,
      `'Lock the kiosk in kiosk mode'`,
      `'With a phone as the only contact (no email)'`,
      `['Update', 'available'].length`,
      `'(the newest first)'.length`,
    ])
      expect(await refusals(file, `export const q = ${prose}`), prose).toEqual([])
    expect(
      await refusals('server/src/modules/events/touch.queries.ts', `export const LOCK = 'lock table event in exclusive mode'`),
    ).toEqual([])
  })

  it('when a module imports pg or knex, or calls getConnection or getKnex, then lint refuses it; the listed exceptions pass', async () => {
    expect(await refusals('server/src/modules/gallery/x.ts', `import pg from 'pg'\nexport const c = new pg.Client()`)).toEqual([
      expect.stringContaining('pg'),
    ])
    expect(await refusals('server/src/modules/gallery/x.ts', `import knex from 'knex'\nexport const k = knex`)).toEqual([
      expect.stringContaining('knex'),
    ])
    expect(await refusals('server/src/http/health.ts', `export const c = (orm: any) => orm.em.getConnection()`)).toEqual([
      expect.stringContaining('getConnection'),
    ])
    expect(await refusals('server/src/modules/gallery/x.ts', `export const k = (orm: any) => orm.em.getKnex()`)).toEqual([
      expect.stringContaining('getKnex'),
    ])
    expect(
      await refusals('server/src/db/notifications.ts', `import pg from 'pg'\nexport const listen = (c: pg.Client) => c.query('select 1')`),
    ).toEqual([])
    expect(await refusals('server/src/modules/staff/auth.ts', `import pg from 'pg'\nexport const pool = new pg.Pool()`)).toEqual([])
  })

  it('when a module loads pg dynamically, requires it, re-exports it or takes getKnex by destructuring, then lint refuses it; the exceptions may', async () => {
    const file = 'server/src/modules/gallery/x.ts'
    for (const code of [
      `export const c = async () => new (await import('pg')).default.Client()`,
      `export const c = async () => import('pg-pool')`,
      `declare const require: (name: string) => unknown\nexport const c = require('knex')`,
      `export { Client } from 'pg'`,
      `export const k = ({ getKnex }: { getKnex(): unknown }) => getKnex()`,
      `export const k = (em: any) => em['getConnection']()`,
    ])
      expect(await refusals(file, code), code).toEqual([expect.stringContaining('Reach the database through the entity manager')])
    expect(
      await refusals('server/src/db/notifications.ts', `export const c = async () => new (await import('pg')).default.Client()`),
    ).toEqual([])
  })
})

describe('the one error writer', () => {
  it('when a route writes an { error } body itself, then lint refuses it; http/answers.ts may', async () => {
    const own = `export const h = (res: any) => res.status(503).json({ error: 'draining' })`
    expect(await refusals('server/src/http/health.ts', own)).toEqual([
      expect.stringContaining('Error bodies are written by http/answers.ts'),
    ])
    expect(await refusals('server/src/http/node-refusals.ts', `export const b = JSON.stringify({ error: 'Bad Request' })`)).toEqual([
      expect.stringContaining('http/answers.ts'),
    ])
    expect(await refusals('server/src/http/answers.ts', own)).toEqual([])
  })

  it('when an { error } body reaches a writer through a variable, a spread or a condition, then lint refuses it; a log line with an error field passes', async () => {
    for (const code of [
      `const body = { error: 'draining' }\nexport const h = (res: any) => res.status(503).json(body)`,
      `export const h = (res: any) => { let body; body = { error: 'draining' }; res.status(503).send(body) }`,
      `const base = { error: 'draining' }\nexport const h = (res: any, ok: boolean) => res.json(ok ? {} : { ...base, code: 'not_ready' })`,
      `export const h = (res: any) => { const body = { error: 'x' } as const; res.end(JSON.stringify(body)) }`,
    ])
      expect(await refusals('server/src/modules/operations/health.ts', code), code).toEqual([
        expect.stringContaining('Error bodies are written by http/answers.ts'),
      ])
    expect(
      await refusals(
        'server/src/modules/operations/health.ts',
        `export const h = (logger: any, res: any, e: unknown) => { const fields = { error: String(e) }; logger.warn('failed', fields); res.json({ status: 'ok' }) }`,
      ),
    ).toEqual([])
    expect(
      await refusals('server/src/http/answers.ts', `const body = { error: 'x' }\nexport const h = (res: any) => res.json(body)`),
    ).toEqual([])
  })

  it('when a domain function throws a plain Error, then lint refuses it; an AppError passes', async () => {
    expect(
      await refusals('server/src/modules/booth-keys/booth-keys.service.ts', `export function f() { throw new Error('bad name') }`),
    ).toEqual([expect.stringContaining('throws an AppError')])
    expect(
      await refusals(
        'server/src/modules/booth-keys/booth-keys.service.ts',
        `declare const AppError: any\nexport function f() { throw new AppError('BAD_REQUEST', 'bad name') }`,
      ),
    ).toEqual([])
  })
})

describe('domain errors', () => {
  it('when any domain file throws a built-in error, with or without `new`, or rejects with one, then lint refuses it; AppError and Fault pass', async () => {
    // Every file of server/src/modules but entities and tests: services, routers, scopes, roles, queries, helpers.
    const domainFiles = [
      'server/src/modules/booth/booth-scope.ts',
      'server/src/modules/staff/roles.ts',
      'server/src/modules/booth/booth.router.ts',
      'server/src/modules/booth/claims.queries.ts',
      'server/src/modules/storage/s3-storage.ts',
      'server/src/modules/events/events.service.ts',
    ]
    const thrown = [
      `export function f() { throw Error('no such set') }`,
      `export function f() { throw new TypeError('no such set') }`,
      `export function f() { throw new RangeError('too many guests') }`,
      `export function f() { throw new globalThis.Error('no such set') }`,
      `export const f = () => Promise.reject(new Error('no such set'))`,
      `export const f = () => new Promise((_, reject) => reject(new Error('no such set')))`,
      `export function f() { const error = new Error('no such set'); throw error }`,
      `export function f() { throw Object.assign(new Error('no such set'), { status: 404 }) }`,
      `export function f(set: unknown) { throw set ? new AppError('x', 'y') : new TypeError('no such set') }\ndeclare const AppError: any`,
    ]
    for (const file of domainFiles)
      for (const code of thrown)
        expect(await refusals(file, code), `${file}: ${code}`).toEqual([expect.stringContaining('throws an AppError')])
    for (const code of [
      `declare const AppError: any\nexport function f() { throw new AppError('no_such_set', 'no such set') }`,
      `declare const Fault: any\nexport function f() { throw new Fault('not a session prefix') }`,
      `declare class PhotoChangedError extends Error {}\nexport function f() { throw new PhotoChangedError() }`,
      // An error kept as data (a delivery's outcome) is not thrown: whoever throws it says what it is.
      `export const outcome = () => ({ error: new Error('the provider gave no result for this message') })`,
    ])
      expect(await refusals('server/src/modules/booth/booth-scope.ts', code), code).toEqual([])
    // Not domain files: an entity (a broken row), a test, the HTTP layer's plumbing.
    for (const file of ['server/src/modules/events/event.entity.ts', 'server/src/modules/common/phone.test.ts', 'server/src/http/edge.ts'])
      expect(await refusals(file, `export function f() { throw new Error('fault') }`), file).toEqual([])
  })
})

describe('one error code', () => {
  it("when a server file makes an ORPCError, under any name, or uses oRPC's error constructors, then lint refuses it; a type import passes, and errors.ts may", async () => {
    const file = 'server/src/modules/booth/booth.router.ts'
    for (const code of [
      `import { ORPCError } from '@orpc/server'\nexport const f = () => { throw new ORPCError('UNAUTHORIZED') }`,
      `import { ORPCError as Refusal } from '@orpc/client'\nexport const f = () => { throw new Refusal('NOT_FOUND') }`,
      `import * as orpc from '@orpc/server'\nexport const f = () => { throw new orpc.ORPCError('NOT_FOUND') }`,
      `export { ORPCError } from '@orpc/server'`,
      `export const f = async () => { const { ORPCError } = await import('@orpc/server'); throw new ORPCError('NOT_FOUND') }`,
      `export const f = ({ errors }: { errors: any }) => { throw errors.NOT_FOUND() }`,
      `export const f = (options: { errors: any }) => { throw options.errors.NOT_FOUND() }`,
    ])
      expect(await refusals(file, code), code).toEqual([expect.stringContaining('Errors are made in errors.ts')])
    expect(await refusals(file, `import type { ORPCError } from '@orpc/server'\nexport type E = ORPCError<string, unknown>`)).toEqual([])
    expect(await refusals(file, `import { type ORPCError } from '@orpc/server'\nexport type E = ORPCError<string, unknown>`)).toEqual([])
    expect(
      await refusals(
        'server/src/errors.ts',
        `import { ORPCError } from '@orpc/server'\nexport const f = () => new ORPCError('BAD_REQUEST')`,
      ),
    ).toEqual([])
  })
})

describe('configuration', () => {
  it('when config.ts imports a value from a module, then lint refuses it; a type passes', async () => {
    expect(
      await refusals('server/src/config.ts', `import { DEFAULTS } from './modules/delivery/dispatcher.js'\nexport const d = DEFAULTS`),
    ).toEqual([expect.stringContaining('config.ts depends on nothing in modules/')])
    expect(
      await refusals(
        'server/src/config.ts',
        `import type { DispatcherSettings } from './modules/delivery/dispatcher.js'\nexport type D = DispatcherSettings`,
      ),
    ).toEqual([])
  })
})

describe('doc comments', () => {
  it('when the sources are read, then no doc comment is stacked on another (the first would document nothing: an editor shows the last)', async () => {
    const { readdir, readFile } = await import('node:fs/promises')
    const root = new URL('../..', import.meta.url).pathname
    const stacked: string[] = []
    for (const folder of ['server/src', 'sdk/src']) {
      for (const entry of await readdir(`${root}${folder}`, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
        const text = await readFile(`${entry.parentPath}/${entry.name}`, 'utf8')
        if (/\*\/\n[ \t]*\/\*\*/.test(text)) stacked.push(`${entry.parentPath.slice(root.length)}/${entry.name}`)
      }
    }
    expect(stacked).toEqual([])
  })
})

describe('tests', () => {
  it("when a test mocks a module, then lint refuses it (test files share their worker's modules)", async () => {
    expect(await refusals('test/kiosk/x.test.ts', `import { vi } from 'vitest'\nvi.mock('node:fs')`)).toEqual([
      expect.stringContaining('isolate: false'),
    ])
  })

  it('when a test reaches vi under another name, then lint refuses it; vi by its name and its other helpers pass', async () => {
    for (const code of [
      `import { vi as v } from 'vitest'\nv.mock('node:fs')`,
      `import * as vitest from 'vitest'\nvitest.vi.mock('node:fs')`,
      `import { vi } from 'vitest'\nconst v = vi\nv.stubGlobal('fetch', () => {})`,
      `import { vi } from 'vitest'\nconst { stubEnv } = vi\nstubEnv('TZ', 'UTC')`,
      `import { vi } from 'vitest'\nvi['mock']('node:fs')`,
    ])
      expect(await refusals('server/src/modules/common/phone.test.ts', code), code).not.toEqual([])
    for (const code of [
      `import { vi as v } from 'vitest'\nv.mock('node:fs')`,
      `import * as vitest from 'vitest'\nvitest.vi.mock('node:fs')`,
    ])
      expect(await refusals('test/kiosk/x.test.ts', code), code).toEqual(
        expect.arrayContaining([expect.stringContaining('isolate: false')]),
      )
    expect(await refusals('test/kiosk/x.test.ts', `import { vi } from 'vitest'\nexport const spy = vi.fn()`)).toEqual([])
  })
})

describe('settings', () => {
  it('when the configuration schema is read, then every setting it takes has a row in docs/configuration.md', async () => {
    const { readFile } = await import('node:fs/promises')
    const root = new URL('../..', import.meta.url).pathname
    const schema = await readFile(`${root}server/src/config.ts`, 'utf8')
    const names = [...schema.matchAll(/^ {4}([A-Z][A-Z0-9_]+): z\./gm)].map((match) => match[1]!)
    expect(names.length).toBeGreaterThan(40)
    // The names in the first cell of each table row (a row may name two: `A`, `B`).
    const rows = (await readFile(`${root}docs/configuration.md`, 'utf8')).split('\n').filter((line) => line.startsWith('| `'))
    const documented = new Set(rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1]!)))
    expect(names.filter((name) => !documented.has(name))).toEqual([])
  })
})

describe('the query rows rule', () => {
  it('when server code runs SQL with an execute of its own, then lint refuses it; run(em, QUERY) and a query builder’s execute() pass, as do tests’ fixtures', async () => {
    const file = 'server/src/modules/events/touch.service.ts'
    for (const code of [
      `import { TOUCH } from './touch.queries.js'\nexport const touch = (em: { execute(q: string): Promise<unknown[]> }) => em.execute(TOUCH)`,
      `export const touch = (tx: { execute<T>(q: string, p: unknown[]): Promise<T[]> }, q: string) => tx.execute<{ id: string }>(q, [1])`,
      `export const touch = (orm: { em: { fork(): { execute(q: string): Promise<unknown> } } }, q: string) => orm.em.fork().execute(q)`,
      `export const touch = (em: { execute(q: string): Promise<unknown> }, q: string) => em['execute'](q)`,
    ])
      expect(await refusals(file, code), code).toEqual([expect.stringContaining('run(em, QUERY, params)')])
    for (const code of [
      `import { run } from '../../db/query.js'\nimport { TOUCH } from './touch.queries.js'\nexport const touch = (em: never) => run(em, TOUCH, [1])`,
      `export const insert = (qb: { execute(): Promise<unknown> }) => qb.execute()`,
    ])
      expect(await refusals(file, code), code).toEqual([])
    expect(
      await refusals(
        'server/src/db/query.ts',
        `export const run = (em: { execute(q: string): Promise<unknown> }, q: string) => em.execute(q)`,
      ),
    ).toEqual([])
    expect(
      await refusals(
        'test/kiosk/x.test.ts',
        `export const seed = (em: { execute(q: string): Promise<unknown> }, q: string) => em.execute(q)`,
      ),
    ).toEqual([])
  })
})
