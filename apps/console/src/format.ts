/** Times and numbers as staff read them, in the browser's own language and time zone. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' })
const day = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })
const number = new Intl.NumberFormat()

export const formatDateTime = (ms: number): string => dateTime.format(ms)
export const formatTime = (ms: number): string => time.format(ms)
export const formatDay = (ms: number): string => day.format(ms)
export const formatNumber = (n: number): string => number.format(n)

/** "3 min ago", "in 2 days": for last uses and registrations. */
export function formatAgo(ms: number, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000)
  const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
  const abs = Math.abs(seconds)
  if (abs < 45) return relative.format(0, 'second')
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute')
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour')
  return relative.format(Math.round(seconds / 86_400), 'day')
}

/** A `<input type="datetime-local">` value for a time, in the browser's zone, and back. */
export function toLocalInput(ms: number): string {
  const date = new Date(ms)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}
export const fromLocalInput = (value: string): number => new Date(value).getTime()

export const plural = (n: number, one: string, many = `${one}s`): string => `${formatNumber(n)} ${n === 1 ? one : many}`
