import { Fault } from '../../errors.js'

/** How long the CDN's purge hook may take before the deletion waits for the next pass. */
const CDN_PURGE_TIMEOUT_MS = 5_000

/** Tells the operator's CDN purge hook that photos under this URL prefix are gone. */
export async function purgeCdn(hookUrl: string, prefixUrl: string): Promise<void> {
  const response = await fetch(hookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prefixes: [prefixUrl] }),
    signal: AbortSignal.timeout(CDN_PURGE_TIMEOUT_MS),
  })
  await response.body?.cancel()
  if (!response.ok) throw new Fault(`the CDN purge hook answered ${response.status}`)
}
