/**
 * How photos arriving one by one make a session: `count:N` (every N photos), `idle:S` (a pause of S
 * seconds after the last photo), or `marker:NAME` (a file of that name, or matching it with `*`,
 * dropped after a session's photos). Photos whose name holds a session id (`--session-pattern`) are
 * grouped by that id, by the same rule.
 */
export type GroupRule =
  { kind: 'count'; count: number } | { kind: 'idle'; seconds: number } | { kind: 'marker'; pattern: RegExp; text: string }

export function parseGroupRule(text: string): GroupRule {
  const [kind, value = ''] = text.split(':', 2) as [string, string | undefined]
  if (kind === 'count' && /^[1-9]\d*$/.test(value) && Number(value) <= 60) return { kind, count: Number(value) }
  if (kind === 'idle' && /^\d+(\.\d+)?$/.test(value) && Number(value) > 0) return { kind, seconds: Number(value) }
  if (kind === 'marker' && value !== '') {
    const pattern = new RegExp(`^${value.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i')
    return { kind, pattern, text: value }
  }
  throw new Error(`--group ${text}: expected count:<1-60>, idle:<seconds> or marker:<file name, * allowed>`)
}
