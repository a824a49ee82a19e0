import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request that reached the service through the proxy: its Idempotency-Key and the address it was given. */
export type Reached = { method: string; path: string; key: string | undefined; ip: string | undefined }

/**
 * An HTTP proxy standing for a venue's network in front of the service, which a test sets:
 *
 * - `network = 'down'`: every connection is reset as it comes (the Wi-Fi is gone);
 * - `network = 'stalled'`: requests are taken and never answered (a link that hangs); `abandoned`
 *   counts those the client gave up on (closed its side);
 * - `network = 'losing answers'` with `answersToLose > 0`: the request reaches the service, which
 *   answers whole, then the client's connection is cut before a byte of the answer (one per count);
 * - `clientIpHeader`: each try leaves from another address (Wi-Fi, then LTE…), sent in that header
 *   to a service that trusts loopback as its proxy.
 */
export type VenueProxy = {
  url: string
  network: 'up' | 'down' | 'losing answers' | 'stalled'
  answersToLose: number
  /** Sees each request before the proxy handles it. */
  onRequest: ((method: string, path: string) => void) | undefined
  reached: Reached[]
  /** Stalled requests whose client closed the connection, and a wait for the next one. */
  abandoned: { count: number; next: () => Promise<void> }
  close: () => Promise<void>
}

export async function startVenueProxy(target: string, options: { clientIpHeader?: string } = {}): Promise<VenueProxy> {
  const upstreamUrl = new URL(target)
  let addresses = 0
  const waiters: (() => void)[] = []
  const server = createServer((req, res) => {
    venue.onRequest?.(req.method!, req.url!)
    if (venue.network === 'down') return req.socket.destroy()
    if (venue.network === 'stalled') {
      req.socket.once('close', () => {
        venue.abandoned.count++
        waiters.splice(0).forEach((resolve) => resolve())
      })
      return
    }
    const ip = options.clientIpHeader ? `203.0.113.${(++addresses % 250) + 1}` : undefined
    venue.reached.push({ method: req.method!, path: req.url!, key: req.headers['idempotency-key'] as string | undefined, ip })
    const headers = { ...req.headers, ...(options.clientIpHeader && ip ? { [options.clientIpHeader]: ip } : {}) }
    const upstream = request(
      { host: upstreamUrl.hostname, port: upstreamUrl.port, method: req.method, path: req.url, headers },
      (answer) => {
        if (venue.network === 'losing answers' && venue.answersToLose > 0) {
          venue.answersToLose--
          answer.resume()
          answer.on('end', () => res.socket?.destroy())
          return
        }
        res.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(res)
      },
    )
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const venue: VenueProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    network: 'up',
    answersToLose: 0,
    onRequest: undefined,
    reached: [],
    abandoned: { count: 0, next: () => new Promise((resolve) => waiters.push(resolve)) },
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  return venue
}
