/**
 * The grid's rows: photos uncropped, in gallery order, each row as wide as the page and its photos
 * of one height (justified rows, as phones' photo apps and Flickr lay them out), so that mixed
 * portrait and landscape photos leave no hole. The rows are chosen here, once per layout, so that
 * each photo's share of its row is known before any browser has the page: its width in CSS
 * (gallery.css) and in `sizes` (a 3× phone then fetches at least the pixels it shows, and no more
 * than the next copy up).
 */

/** How the rows of one screen class are chosen. */
export type RowPlan = {
  /** The width laid out, in CSS pixels (the page's content box on a typical screen of the class). */
  width: number
  /** The gap between photos, in CSS pixels (gallery.css's `--gap`). */
  gap: number
  /** The long side a photo is aimed at, in CSS pixels. */
  target: number
  /**
   * Above this long side a photo costs four times as much: on a phone at 3×, 160 px is the 480 px
   * copy's limit, and past it each photo takes the 720 px copy, twice the bytes.
   */
  steep: number
  /** A row holds at most this many photos. */
  most: number
  /** Narrower photos than this are never made (a caption below them must stay readable). */
  narrowest?: number
  /**
   * The last row may stay short of the width, its photos at the height aimed at, rather than grow
   * to fill it (a list of galleries ends where it ends; a gallery's photos make a rectangle).
   */
  openLast?: boolean
}

/**
 * A photo's place: its share of its row's width (gaps left out), how many photos the row holds, and
 * whether the row stops short of the width (`open`: its shares add up to less than 1).
 */
export type Place = { share: number; count: number; open: boolean }

/**
 * The rows that keep every photo's long side nearest `target` (squared log ratios: half and double
 * cost the same), full width each (the last one too, unless `openLast`): no hole between photos.
 * Dynamic programming over where rows end, O(photos × most²).
 */
export function justifiedRows(aspects: readonly number[], plan: RowPlan): Place[] {
  const n = aspects.length
  const best = [0]
  const rowLength = [0]
  for (let end = 1; end <= n; end++) {
    best[end] = Infinity
    rowLength[end] = 1
    for (let count = 1; count <= Math.min(plan.most, end); count++) {
      const cost = best[end - count]! + rowOf(aspects.slice(end - count, end), plan, end === n).cost
      if (cost < best[end]!) {
        best[end] = cost
        rowLength[end] = count
      }
    }
  }
  const ends: number[] = []
  for (let end = n; end > 0; end -= rowLength[end]!) ends.unshift(end)
  const places: Place[] = []
  let previous: number | undefined
  for (const [i, end] of ends.entries()) {
    const row = aspects.slice(i === 0 ? 0 : ends[i - 1], end)
    const laid = rowOf(row, plan, end === n)
    // An open row as tall as the row above it, where that fits: one height down the list.
    const height = laid.open && previous !== undefined ? Math.min(previous, laid.full) : laid.height
    const inner = plan.width - (row.length - 1) * plan.gap
    places.push(...row.map((aspect) => ({ share: (aspect * height) / inner, count: row.length, open: laid.open && height < laid.full })))
    previous = height
  }
  return places
}

/** A row's height and cost, and whether it stops short of the width (only the last, with `openLast`). */
function rowOf(row: readonly number[], plan: RowPlan, last: boolean): { height: number; full: number; open: boolean; cost: number } {
  const sum = row.reduce((total, aspect) => total + aspect, 0)
  const full = (plan.width - (row.length - 1) * plan.gap) / sum
  // Open: the height that puts the row's typical photo at the target.
  const aimed = plan.target / Math.max(1, sum / row.length)
  const open = Boolean(plan.openLast && last && aimed < full)
  const height = open ? aimed : full
  let cost = 0
  for (const aspect of row) {
    // A single photo in a row is always allowed, however narrow: nothing else could hold it.
    if (plan.narrowest !== undefined && row.length > 1 && height * aspect < plan.narrowest) return { height, full, open, cost: Infinity }
    const long = height * Math.max(aspect, 1)
    cost += Math.log(long / plan.target) ** 2 * (long > plan.steep ? 4 : 1)
  }
  return { height, full, open, cost }
}

/**
 * A phone (390 px less the page's margins). Ten photos or more: aimed at 140 px, within the 480 px
 * copy at 3× (160 px), so that a screenful of them stays within the page's byte budget. Fewer: as
 * much larger as keeps their total area the same (√(10/n)), up to 250 px: two photos side by side
 * rather than two at full width, which would take the 1600 px copy each.
 */
export function phoneRows(count: number): RowPlan {
  const target = Math.min(250, 140 * Math.sqrt(Math.max(1, 10 / count)))
  return { width: 358, gap: 4, target, steep: (target * 8) / 7, most: 6 }
}

/** Wider screens (up to the page's 72rem, less its margins): larger photos, bytes matter less. */
export const WIDE_ROWS: RowPlan = { width: 1104, gap: 8, target: 300, steep: Infinity, most: 8 }

/** Where the layouts switch (gallery.css: `@media (min-width: 40rem)`), and the page's margins on each side. */
export const WIDE_FROM_PX = 640
const PHONE_MARGINS_PX = 32
const PHONE_GAP_PX = 4
const WIDE_MARGINS_PX = 48
const PAGE_MAX_PX = 1152

const round = (value: number) => Math.round(value * 100) / 100

/**
 * `sizes` for a photo placed on a phone and on a wide screen: its share of the content width less
 * its row's gaps, as gallery.css lays it out, so that the browser picks exactly enough pixels.
 */
export function sizesOf(phone: Place, wide: Place): string {
  const phoneWidth = `calc(${round(phone.share * 100)}vw - ${round(phone.share * (PHONE_MARGINS_PX + (phone.count - 1) * PHONE_GAP_PX))}px)`
  const wideGaps = (wide.count - 1) * WIDE_ROWS.gap
  const wideWidth = `calc(${round(wide.share * 100)}vw - ${round(wide.share * (WIDE_MARGINS_PX + wideGaps))}px)`
  const widest = `${Math.ceil(wide.share * (PAGE_MAX_PX - WIDE_MARGINS_PX - wideGaps))}px`
  return `(max-width: ${WIDE_FROM_PX - 0.02}px) ${phoneWidth}, (max-width: ${PAGE_MAX_PX}px) ${wideWidth}, ${widest}`
}

/**
 * The style a tile carries: its exact aspect ratio (the photos of a row then share one height) and,
 * per layout, its share and its row's count (gallery.css turns them into a flex basis). Shares are
 * rounded down so that a row never adds up to more than its width (it would wrap early); the flex
 * grow takes up the rest, a few thousandths of a pixel, except in a row left open (`--pg`, `--wg`: 0).
 */
export function tileStyle({ width, height }: { width: number; height: number }, phone: Place, wide: Place): string {
  const down = (value: number) => Math.floor(value * 100_000) / 100_000
  const grow = (place: Place, name: string) => (place.open ? `;--${name}:0` : '')
  return `--r:${width}/${height};--p:${down(phone.share)};--pn:${phone.count}${grow(phone, 'pg')};--w:${down(wide.share)};--wn:${wide.count}${grow(wide, 'wg')}`
}
