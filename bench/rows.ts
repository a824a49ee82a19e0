/**
 * The one result format every benchmark speaks: rows of `| row | value | figures | target | result |`.
 *
 * A bench script builds its rows and calls `reportRows(rows)` once, at the end: the rows are
 * printed as a markdown table and, when `BENCH_ROWS_FILE` is set (by `bench/run.ts`), appended to
 * that file as JSON lines, one row per line, for the runner's combined table. A check that breaks
 * (wrong answers, a crash) is not a row: the script exits non-zero instead.
 */
import { appendFileSync } from 'node:fs'

import { QUICK } from './support.js'

export type Result = 'PASS' | 'FAIL' | 'info'

export type Row = {
  /** What is measured, e.g. "`GET /gallery/:sessionId`: ours ÷ baseline". */
  row: string
  /** The figure the target judges: a ratio, bytes, seconds. */
  value: string
  /** What the value is made of: the figures on both sides, percentiles, counts. */
  figures: string
  /** e.g. "≥ 0.8×", or "(none)" for a row printed for context. */
  target: string
  result: Result
}

/** The environment variable through which the runner asks for the rows. */
export const ROWS_FILE_VARIABLE = 'BENCH_ROWS_FILE'

export const verdict = (ok: boolean): Result => (ok ? 'PASS' : 'FAIL')

export const COLUMNS = ['row', 'value', 'figures', 'target', 'result'] as const

/** A markdown table (the value column right-aligned), padded so that it also reads as text. */
export function formatTable<C extends string>(
  rows: readonly Record<C, string>[],
  columns: readonly C[] = COLUMNS as unknown as readonly C[],
): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
  const all = [columns.map(String), ...rows.map((row) => columns.map((column) => cell(row[column])))]
  const widths = columns.map((_, i) => Math.max(3, ...all.map((cells) => cells[i]!.length)))
  const right = columns.map((column) => column === 'value')
  const line = (cells: string[]) =>
    `| ${cells.map((text, i) => (right[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!))).join(' | ')} |`
  const rule = `| ${widths.map((width, i) => (right[i] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`
  return [line(all[0]!), rule, ...all.slice(1).map(line)].join('\n')
}

/** In quick mode no figure is judged: every row is printed as `info`, its target kept in words. */
const unjudged = (row: Row): Row => (row.result === 'info' ? row : { ...row, target: `${row.target} (not judged: quick)`, result: 'info' })

/** Prints the rows as a table, with a one-line verdict, and hands them to the runner if it asked. */
export function reportRows(judged: readonly Row[]): void {
  const rows = QUICK ? judged.map(unjudged) : judged
  console.log(`\n${formatTable(rows)}`)
  const failed = rows.filter((row) => row.result === 'FAIL')
  console.log(
    QUICK
      ? '\nQUICK: every answer checked; the figures above are of one short round and judge nothing.'
      : failed.length === 0
        ? '\nPASS: every target is met.'
        : `\nFAIL: ${failed.map((row) => row.row).join('; ')}.`,
  )
  const file = process.env[ROWS_FILE_VARIABLE]
  if (file) appendFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''))
}
