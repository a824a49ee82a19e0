import { describe, expect, it } from 'vitest'

import { accentColours, contrast } from './accent-colours.js'

describe('a business’s accent colour on the pages', () => {
  it('when any colour is picked, then the text on it, and links on the light and dark pages, read at 4.5:1 at least', () => {
    for (const accent of ['#f5c518', '#ffffff', '#000000', '#b4235a', '#0a7c4a', '#777777', '#00ffff', '#1d4ed8', '#3b3b3b']) {
      const colours = accentColours(accent)
      expect(contrast(colours.accent, colours.onAccent), accent).toBeGreaterThanOrEqual(4.5)
      expect(contrast(colours.linkLight, '#ffffff'), accent).toBeGreaterThanOrEqual(4.5)
      expect(contrast(colours.linkDark, '#121214'), accent).toBeGreaterThanOrEqual(4.5)
    }
  })

  it('when the colour reads already, then it is kept as picked; else it is darkened or lightened only as much as needed', () => {
    expect(accentColours('#1D4ED8')).toMatchObject({ accent: '#1d4ed8', onAccent: '#ffffff', linkLight: '#1d4ed8' })
    const yellow = accentColours('#f5c518')
    expect(yellow.onAccent).toBe('#000000')
    expect(yellow.linkDark).toBe('#f5c518')
    expect(contrast(yellow.linkLight, '#ffffff')).toBeLessThan(5)
  })
})
