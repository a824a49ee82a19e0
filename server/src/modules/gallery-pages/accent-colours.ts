/**
 * A business's accent colour as the pages use it, readable whatever colour staff picked (WCAG 2.2
 * AA, 4.5:1 for text): the text on a button of that colour (black or white, whichever reads better:
 * one of them always reaches 4.5:1), and the colour of links on the page's light and dark
 * backgrounds (the accent itself where it reads, else the accent darkened or lightened just enough).
 */

/** The pages' backgrounds (gallery.css: `--page` in the light and the dark scheme). */
const LIGHT_PAGE = '#ffffff'
const DARK_PAGE = '#121214'
const AA = 4.5

type Rgb = [number, number, number]

const rgbOf = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb
const hexOf = (rgb: Rgb) => `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`

/** Relative luminance (WCAG 2.2). */
function luminance([r, g, b]: Rgb): number {
  const linear = (channel: number) => {
    const c = channel / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(rgbOf(a)), luminance(rgbOf(b))].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

/** The accent mixed toward `toward` by the least amount (in steps of 1%) that reads on `page`. */
function readableOn(accent: string, page: string, toward: Rgb): string {
  const from = rgbOf(accent)
  for (let step = 0; step <= 100; step++) {
    const mixed = hexOf(from.map((channel, i) => channel + ((toward[i]! - channel) * step) / 100) as Rgb)
    if (contrast(mixed, page) >= AA) return mixed
  }
  return hexOf(toward)
}

export type AccentColours = { accent: string; onAccent: string; linkLight: string; linkDark: string }

export function accentColours(accent: string): AccentColours {
  const colour = accent.toLowerCase()
  return {
    accent: colour,
    onAccent: contrast(colour, '#000000') >= contrast(colour, '#ffffff') ? '#000000' : '#ffffff',
    linkLight: readableOn(colour, LIGHT_PAGE, [0, 0, 0]),
    linkDark: readableOn(colour, DARK_PAGE, [255, 255, 255]),
  }
}
