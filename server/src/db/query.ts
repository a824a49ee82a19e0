import type { Configuration } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { z } from 'zod'

import { Fault } from '../errors.js'

/**
 * A statement of ours with the shape of the rows PostgreSQL answers it with: the row type is
 * inferred from `row`, so the SQL and its type have one source, next to each other in a
 * `*.queries.ts` file. `row` states what the driver gives (a `::int` count is a number, a `count(*)`
 * a string, a `timestamptz` a Date), never a conversion: rows are checked, not transformed.
 */
export type Query<Row> = { readonly name: string; readonly sql: string; readonly row: z.ZodType<Row> }

/** A query answering rows of `row`'s shape; `name` (`area.query`) is what a mismatch names. */
export const query = <Schema extends z.ZodType>(
  name: string,
  sql: string,
  row: Schema,
): Query<z.output<Schema>> & { readonly row: Schema } => ({
  name,
  sql,
  row: row as Schema & z.ZodType<z.output<Schema>>,
})

/** A statement that answers no rows (an update or insert without `returning`): a row would be a mismatch. */
export const statement = (name: string, sql: string): Query<never> => ({ name, sql, row: z.never() })

/**
 * How many of a result's rows `run` checks: `every` in development and tests (what the tests run
 * is checked whole), `first` in production (ROW_CHECKS): one row per statement costs 1 to 3 µs
 * whatever the result's size, where every row of the event page's 2,600 photos costs 3 ms (7 on a
 * busy machine), a tenth of its CPU or more (zod 4.6 on the bench's rows). The first row still
 * catches a column renamed, retyped or gone (a migration without its code, or the reverse).
 */
export type RowChecks = 'every' | 'first'

/** Per ORM (its configuration, shared by every fork of its entity manager): set once when it opens. */
const rowChecks = new WeakMap<Configuration, RowChecks>()

export function setRowChecks(orm: { config: Configuration }, checks: RowChecks): void {
  rowChecks.set(orm.config, checks)
}

/**
 * What a mismatch says: the query, the column and what was expected of it; never a value (rows hold
 * guests' names, addresses and phones, and an error is logged).
 */
function mismatch(name: string, row: number, issues: readonly z.core.$ZodIssue[]): Fault {
  const [issue] = issues
  const column = issue?.path.map(String).join('.') || '(row)'
  const expected = issue?.code === 'invalid_type' ? `, expected ${issue.expected}` : ''
  const keys = issue?.code === 'unrecognized_keys' ? `: unexpected column ${issue.keys.join(', ')}` : ''
  return new Fault(
    `Query ${name} answered a row (#${row}) its schema refuses: column ${column}, ${issue?.code ?? 'invalid'}${expected}${keys}` +
      (issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''),
  )
}

/** The rows checked against the query's schema (all, or the first: `RowChecks`); the rows themselves are answered as read. */
export function checkRows<Row>(query: Query<Row>, rows: readonly unknown[], checks: RowChecks = 'every'): Row[] {
  const count = checks === 'every' ? rows.length : Math.min(rows.length, 1)
  for (let index = 0; index < count; index++) {
    const result = query.row.safeParse(rows[index], { reportInput: false })
    if (!result.success) throw mismatch(query.name, index, result.error.issues)
  }
  return rows as Row[]
}

/**
 * The one way our raw SQL runs: `em.execute` of the query's text, its rows checked against its
 * schema. A house rule refuses `em.execute` anywhere else.
 */
export async function run<Row>(em: EntityManager, query: Query<Row>, params: readonly unknown[] = []): Promise<Row[]> {
  const checks = rowChecks.get(em.config) ?? 'every'
  if (checks === 'every') checkParams(query, params)
  const rows = await em.execute<unknown[]>(query.sql, [...params])
  return checkRows(query, rows, checks)
}

/**
 * One parameter per `?` (a list is one array): a missing one would be bound as nothing, or a list
 * spread into the wrong place, and the statement run anyway. Checked where every row is.
 */
export function checkParams(query: Pick<Query<unknown>, 'name' | 'sql'>, params: readonly unknown[]): void {
  const placeholders = query.sql.split('?').length - 1
  if (placeholders !== params.length) throw new Fault(`Query ${query.name} takes ${placeholders} parameters, given ${params.length}`)
}
