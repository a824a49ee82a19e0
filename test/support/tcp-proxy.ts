import { createServer, connect, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on loopback in front of one target (PostgreSQL, S3, Redis), which a drill breaks on
 * purpose and mends again:
 *
 * - `cut()`: every open connection is destroyed, both sides at once, and every new one is reset as
 *   soon as it is accepted (the client sees ECONNRESET), until `restore()`: the server "died".
 * - `stall()`: connections stay open and new ones are accepted, but not a byte goes through in
 *   either direction (what arrives is dropped), until `restore()`: a network partition, a frozen
 *   server. On `restore()` the connections that were stalled are destroyed (their bytes are lost,
 *   so they could never be resumed honestly); the clients make new ones.
 * - `restore()`: new connections go through again.
 * - `throttle(bytesPerSecond)`: every byte goes through at that rate at most, each direction sharing
 *   it across connections, as a venue's uplink does (`undefined`: no limit again).
 */
export type TcpProxy = {
  host: string
  port: number
  /** `127.0.0.1:<port>`. */
  address: string
  /** `url` with its host and port replaced by the proxy's (a database, S3 or Redis URL). */
  through: (url: string) => string
  state: () => 'open' | 'cut' | 'stalled'
  cut: () => void
  stall: () => void
  restore: () => void
  throttle: (bytesPerSecond: number | undefined) => void
  /** Connections open right now (client side). */
  connections: () => number
  /** Every connection accepted, and those reset at once because the proxy was cut. */
  counters: () => { accepted: number; refused: number; destroyed: number; droppedBytes: number }
  close: () => Promise<void>
}

type Pair = { client: Socket; upstream?: Socket; stalled: boolean }

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let state: 'open' | 'cut' | 'stalled' = 'open'
  const pairs = new Set<Pair>()
  const counts = { accepted: 0, refused: 0, destroyed: 0, droppedBytes: 0 }
  let rate: number | undefined
  /** When each direction's link is free again (ms, performance.now()): the chunks queue on it. */
  const linkFreeAt = new Map<'up' | 'down', number>([
    ['up', 0],
    ['down', 0],
  ])

  const destroy = (pair: Pair) => {
    if (!pairs.delete(pair)) return
    counts.destroyed++
    pair.client.destroy()
    pair.upstream?.destroy()
  }

  /** Forwards `from` to `to` while the pair is not stalled, with backpressure; drops bytes while it is. */
  const forward = (pair: Pair, from: Socket, to: () => Socket | undefined, direction: 'up' | 'down') => {
    from.on('data', (chunk: Buffer) => {
      const destination = to()
      if (pair.stalled || state === 'stalled' || !destination) {
        counts.droppedBytes += chunk.length
        return
      }
      if (rate !== undefined) {
        // Throttled: the chunk takes its time on the shared link, and the sender waits for it.
        const start = Math.max(performance.now(), linkFreeAt.get(direction)!)
        linkFreeAt.set(direction, start + (chunk.length / rate) * 1000)
        from.pause()
        setTimeout(
          () => {
            if (!destination.destroyed) destination.write(chunk, () => from.resume())
          },
          linkFreeAt.get(direction)! - performance.now(),
        )
        return
      }
      if (!destination.write(chunk)) {
        from.pause()
        destination.once('drain', () => from.resume())
      }
    })
    // A half-close goes through too (unless stalled: then nothing does).
    from.on('end', () => {
      if (pair.stalled || state === 'stalled') return
      // After the chunks still queued on a throttled link (their timers fire first).
      if (rate !== undefined) setTimeout(() => to()?.end(), Math.max(0, linkFreeAt.get(direction)! - performance.now()))
      else to()?.end()
    })
  }

  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    if (state === 'cut') {
      counts.refused++
      client.resetAndDestroy()
      return
    }
    counts.accepted++
    const pair: Pair = { client, stalled: state === 'stalled' }
    pairs.add(pair)
    client.setNoDelay(true)
    client.on('error', () => destroy(pair))
    client.on('close', () => destroy(pair))
    forward(pair, client, () => pair.upstream, 'up')
    // A connection accepted while stalled gets no upstream: nothing would go through anyway, and
    // it is destroyed on restore.
    if (pair.stalled) return
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true })
    pair.upstream = upstream
    upstream.setNoDelay(true)
    upstream.on('error', () => destroy(pair))
    upstream.on('close', () => destroy(pair))
    forward(pair, upstream, () => client, 'down')
  })
  server.maxConnections = 10_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as { port: number }).port
  const host = '127.0.0.1'

  return {
    host,
    port,
    address: `${host}:${port}`,
    through: (url) => {
      const parsed = new URL(url)
      parsed.hostname = host
      parsed.port = String(port)
      return parsed.toString()
    },
    state: () => state,
    cut: () => {
      state = 'cut'
      for (const pair of [...pairs]) destroy(pair)
    },
    stall: () => {
      state = 'stalled'
      for (const pair of pairs) pair.stalled = true
    },
    restore: () => {
      if (state === 'stalled') for (const pair of [...pairs]) if (pair.stalled) destroy(pair)
      state = 'open'
    },
    throttle: (bytesPerSecond) => {
      rate = bytesPerSecond
    },
    connections: () => pairs.size,
    counters: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of [...pairs]) destroy(pair)
        server.close(() => resolve())
      }),
  }
}

/** The host and port of a URL (`postgres://…@127.0.0.1:5432/db`, `redis://…`, `http://…`). */
export function targetOf(url: string): { host: string; port: number } {
  const parsed = new URL(url)
  const defaults: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'redis:': 6379, 'http:': 80, 'https:': 443 }
  return {
    host: parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname,
    port: parsed.port ? Number(parsed.port) : defaults[parsed.protocol]!,
  }
}
