import { galleryLink } from '@photobooth/sdk'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { Event } from '../../db/entities/event.entity.js'
import { NO_SUCH_EVENT } from '../events/index.js'
import { attachment } from '../gallery/index.js'
import { fullName } from '../common/index.js'
import { guestPageQuery, type GuestKey, type GuestRow } from './guests-csv.queries.js'
import { run } from '../../db/query.js'

/** Guests read and written per round trip: a few tens of kilobytes of CSV. */
const PAGE_ROWS = 500

const HEADER = [
  'Name',
  'Email',
  'Phone',
  'Session label',
  'Gallery link',
  'Time',
  'Marketing opt-in',
  'Agreed to listing',
  'Privacy notice version',
  'Email delivery',
  'SMS delivery',
]

const yesNo = (value: boolean) => (value ? ('yes' as const) : ('no' as const))

/** A guest's answer about the event page, as exports say it: a default they were never asked about is no answer. */
export const listingChoiceOf = (choice: boolean | null): 'yes' | 'no' | 'not asked' => (choice === null ? 'not asked' : yesNo(choice))

/** Excel and Numbers read a file without it as their local code page and garble accents. */
const BYTE_ORDER_MARK = '\uFEFF'

/** A value a spreadsheet would run as a formula (OWASP's CSV injection list), however harmless it looks (`+1415…`). */
const FORMULA_START = /^[=+\-@\t\r]/
const NEEDS_QUOTES = /[",\r\n]/

/**
 * One field per RFC 4180, neutralised first: the `'` prefix goes inside the quotes. The first
 * character is compared in its compatibility form (NFKC), so that the fullwidth `＝＋－＠`, the small
 * `﹦﹢﹣﹫` and the superscript `⁼⁺⁻` count as the signs they stand for: spreadsheets set for East
 * Asian input read them as those, and a formula typed at a kiosk may well start with one.
 */
export function csvField(value: string): string {
  const inert = FORMULA_START.test(value.slice(0, 1).normalize('NFKC')) ? `'${value}` : value
  return NEEDS_QUOTES.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert
}

const csvLine = (fields: readonly string[]) => `${fields.map(csvField).join(',')}\r\n`

export type GuestsCsv = { headers: Record<string, string>; body: AsyncIterable<Buffer> }

/**
 * An event's guests as CSV for the organiser (the header row, then one row per guest of every
 * session but the cancelled, oldest first), read a page at a time while it is sent. `signal`:
 * the client went away, so no further page is read.
 */
export async function exportGuestsCsv(
  { em, config }: Pick<AppContext, 'em' | 'config'>,
  { eventId, signal }: { eventId: string; signal: AbortSignal },
): Promise<GuestsCsv> {
  const event = await em.findOne(Event, eventId, { fields: ['slug'] })
  if (!event) throw new AppError('no_such_event', NO_SUCH_EVENT)
  const toLine = (row: GuestRow) =>
    csvLine([
      fullName({ firstName: row.first_name, lastName: row.last_name }),
      row.email ?? '',
      row.phone ?? '',
      row.label,
      galleryLink(config.galleryUrl, row.session_id),
      row.registered_at,
      yesNo(row.marketing_opt_in),
      listingChoiceOf(row.listing_choice),
      row.privacy_notice_version ?? '',
      row.email_state ?? '',
      row.sms_state ?? '',
    ])

  async function* body(): AsyncGenerator<Buffer> {
    yield Buffer.from(BYTE_ORDER_MARK + csvLine(HEADER))
    let after: GuestKey | undefined
    while (!signal.aborted) {
      const rows = await run(em, ...guestPageQuery(eventId, after, PAGE_ROWS))
      if (rows.length > 0) yield Buffer.from(rows.map(toLine).join(''))
      if (rows.length < PAGE_ROWS) return
      const last = rows.at(-1)!
      after = { createdUs: last.created_us, sessionId: last.session_id, position: last.position }
    }
  }

  return {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': attachment(`${event.slug}-guests.csv`),
      // Guests' names, addresses and numbers: no cache keeps a copy.
      'cache-control': 'private, no-store',
    },
    body: body(),
  }
}
