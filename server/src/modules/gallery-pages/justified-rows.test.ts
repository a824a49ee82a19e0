import { describe, expect, it } from 'vitest'

import { justifiedRows, phoneRows, sizesOf, WIDE_ROWS, type Place, type RowPlan } from './justified-rows.js'

const L = 3 / 2
const P = 2 / 3

/** The rows as [count, shares] in order. */
function rows(places: Place[]): Place[][] {
  const grouped: Place[][] = []
  for (let i = 0; i < places.length; i += places[i]!.count) grouped.push(places.slice(i, i + places[i]!.count))
  return grouped
}

/** Each photo's long side in CSS px, laid out at the plan's width. */
const longSides = (aspects: number[], plan: RowPlan) =>
  justifiedRows(aspects, plan).map((place, i) => {
    const width = place.share * (plan.width - (place.count - 1) * plan.gap)
    return width * Math.max(1, 1 / aspects[i]!)
  })

describe('justified rows', () => {
  it('when photos of any shapes are laid out, then every row fills the width and its photos share one height, in order', () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let run = 0; run < 50; run++) {
      const aspects = Array.from(
        { length: 1 + Math.floor(random() * 40) },
        () => [L, P, 1, 16 / 9, 9 / 16, 4 / 5][Math.floor(random() * 6)]!,
      )
      for (const plan of [phoneRows(aspects.length), WIDE_ROWS]) {
        const places = justifiedRows(aspects, plan)
        expect(places).toHaveLength(aspects.length)
        let i = 0
        for (const row of rows(places)) {
          expect(row.reduce((sum, place) => sum + place.share, 0)).toBeCloseTo(1, 9)
          const heights = row.map((place, j) => place.share / aspects[i + j]!)
          for (const height of heights) expect(height).toBeCloseTo(heights[0]!, 9)
          expect(row.length).toBeLessThanOrEqual(plan.most)
          i += row.length
        }
      }
    }
  })

  it('when a gallery of ten camera photos (two portrait) is laid out for a phone, then each is within the 480 px copy at 3× (160 px)', () => {
    const bench = [L, L, P, L, L, L, L, P, L, L]
    for (const aspects of [bench, Array<number>(10).fill(P)]) {
      const plan = phoneRows(aspects.length)
      expect(Math.max(...longSides(aspects, plan))).toBeLessThanOrEqual(160)
    }
  })

  it('when a gallery holds few photos, then they are larger, two side by side rather than each at full width', () => {
    expect(rows(justifiedRows([L, L], phoneRows(2))).map((row) => row.length)).toEqual([2])
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
    expect(mean(longSides([L, P, L, P], phoneRows(4)))).toBeGreaterThan(
      1.3 * mean(longSides([L, P, L, P, L, P, L, P, L, P], phoneRows(10))),
    )
  })

  it('when a caption must stay readable, then no photo of a shared row is narrower than asked; an open last row ends short, as tall as the row above', () => {
    const plan: RowPlan = { ...phoneRows(10), narrowest: 100, openLast: true }
    const aspects = [L, P, L, L, L]
    const places = justifiedRows(aspects, plan)
    for (const place of places)
      if (place.count > 1) expect(place.share * (plan.width - (place.count - 1) * plan.gap)).toBeGreaterThanOrEqual(100)
    const laid = rows(places)
    const last = laid.at(-1)!
    if (last[0]!.open) {
      expect(last.reduce((sum, place) => sum + place.share, 0)).toBeLessThan(1)
      const heightOf = (row: Place[], start: number) => (row[0]!.share * (plan.width - (row.length - 1) * plan.gap)) / aspects[start]!
      expect(heightOf(last, aspects.length - last.length)).toBeCloseTo(
        heightOf(laid.at(-2)!, aspects.length - last.length - laid.at(-2)!.length),
        6,
      )
    }
    // A lone gallery is not stretched to the page's width.
    const lone = justifiedRows([L], plan)
    expect(lone[0]).toMatchObject({ count: 1, open: true })
    expect(lone[0]!.share).toBeLessThan(1)
  })

  it('when sizes are written, then they are the share of the content width less the row’s gaps, per layout', () => {
    expect(sizesOf({ share: 0.5, count: 2, open: false }, { share: 0.25, count: 4, open: false })).toBe(
      '(max-width: 639.98px) calc(50vw - 18px), (max-width: 1152px) calc(25vw - 18px), 270px',
    )
  })
})
