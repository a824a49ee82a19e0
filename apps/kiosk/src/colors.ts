/**
 * The event's accent colour, made safe to read (WCAG 2.1 AA): the text on an accent button is black
 * or white, whichever contrasts more (one of them always reaches 4.5:1), and the accent drawn on the
 * page's white (borders, focus rings, the ticked box) is darkened until it reaches 3:1.
 */
const DEFAULT_ACCENT = '#4338ca'

const channels = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
const toHex = (rgb: number[]) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`

function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

export const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

export type Palette = { accent: string; onAccent: string; accentOnWhite: string }

export function paletteOf(accentColor: string | undefined): Palette {
  const accent = accentColor && /^#[0-9a-f]{6}$/i.test(accentColor) ? accentColor.toLowerCase() : DEFAULT_ACCENT
  const onAccent = contrast(accent, '#ffffff') >= contrast(accent, '#111111') ? '#ffffff' : '#111111'
  let accentOnWhite = accent
  for (let step = 0; contrast(accentOnWhite, '#ffffff') < 3 && step < 20; step++)
    accentOnWhite = toHex(channels(accentOnWhite).map((c) => c * 0.85))
  return { accent, onAccent, accentOnWhite }
}
