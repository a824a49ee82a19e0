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
    expect(await refusals('server/src/modules/events/touch.service.ts', inline)).toEqual([
      expect.stringContaining('SQL lives in a *.queries.ts file'),
    ])
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

  it('when a domain function throws a plain Error, then lint refuses it; an AppError passes', async () => {
    expect(
      await refusals('server/src/modules/booth-keys/booth-keys.service.ts', `export function f() { throw new Error('bad name') }`),
    ).toEqual([expect.stringContaining('throws AppError')])
    expect(
      await refusals(
        'server/src/modules/booth-keys/booth-keys.service.ts',
        `declare const AppError: any\nexport function f() { throw new AppError('BAD_REQUEST', 'bad name') }`,
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
