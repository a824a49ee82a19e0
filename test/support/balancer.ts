import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A tiny HTTP load balancer on loopback, as a drill's stand-in for a cloud one: it probes each
 * backend's `GET /readyz` every 500 ms (a probe times out after 400 ms), takes a backend out after 2
 * probes in a row fail (not 200, or no answer) and puts it back after 1 that passes, and sends each
 * request to the next backend in service (round robin), over keep-alive connections as a real
 * balancer does. A request whose backend fails it (refused, reset, closed before the answer) is
 * answered 502: that is a failed request. With no backend in service: 503.
 */
export type Balancer = {
  url: string
  /** A backend (`http://127.0.0.1:<port>`), out of service until its first probe passes. */
  add: (url: string) => void
  remove: (url: string) => void
  /** Resolves once the backend is in service; fails after `ms`. */
  whenUp: (url: string, ms?: number) => Promise<void>
  /** Resolves once the backend is out of service; fails after `ms`. */
  whenDown: (url: string, ms?: number) => Promise<void>
  inService: () => string[]
  counters: () => BalancerCounters
  close: () => Promise<void>
}

export type BalancerCounters = {
  requests: number
  /** Answers by status, the balancer's own 502s and 503s included. */
  byStatus: Record<number, number>
  /** Why each 502 was given (the backend error's code), and answers cut after their head. */
  errors: string[]
  /** Requests sent to each backend. */
  byBackend: Record<string, number>
}

type Backend = { url: string; up: boolean; failures: number; timer?: NodeJS.Timeout; probing: boolean; removed: boolean }

const PROBE_MS = 500
const PROBE_TIMEOUT_MS = 400
const DOWN_AFTER = 2

export async function startBalancer(): Promise<Balancer> {
  const backends: Backend[] = []
  let next = 0
  const counters: BalancerCounters = { requests: 0, byStatus: {}, errors: [], byBackend: {} }
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const watchers = new Set<() => void>()
  const changed = () => watchers.forEach((watch) => watch())

  const count = (status: number) => (counters.byStatus[status] = (counters.byStatus[status] ?? 0) + 1)

  const probe = (backend: Backend) => {
    if (backend.probing || backend.removed) return
    backend.probing = true
    let settled = false
    const done = (ok: boolean) => {
      if (settled) return
      settled = true
      backend.probing = false
      if (backend.removed) return
      if (ok) {
        // In service after one probe that passes.
        backend.failures = 0
        if (!backend.up) {
          backend.up = true
          changed()
        }
      } else if (++backend.failures >= DOWN_AFTER && backend.up) {
        backend.up = false
        changed()
      }
    }
    // Probes on connections of their own: a probe must not ride a request's keep-alive connection.
    const req = request(`${backend.url}/readyz`, { agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume()
      res.on('end', () => done(res.statusCode === 200))
      res.on('error', () => done(false))
    })
    req.on('timeout', () => {
      req.destroy()
      done(false)
    })
    req.on('error', () => done(false))
    req.end()
  }

  const pick = (): Backend | undefined => {
    const up = backends.filter((backend) => backend.up)
    if (up.length === 0) return undefined
    return up[next++ % up.length]
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    counters.requests++
    const backend = pick()
    if (!backend) {
      count(503)
      res.writeHead(503, { 'content-type': 'text/plain' }).end('no backend in service')
      return
    }
    counters.byBackend[backend.url] = (counters.byBackend[backend.url] ?? 0) + 1
    const target = new URL(req.url ?? '/', backend.url)
    const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host }, agent }, (answer) => {
      count(answer.statusCode ?? 0)
      const headers = { ...answer.headers }
      // The client's connection is the balancer's own: a backend's `Connection: close` (its drain) is not passed on.
      delete headers.connection
      delete headers['keep-alive']
      res.writeHead(answer.statusCode ?? 502, headers)
      answer.pipe(res)
      answer.on('error', (error: NodeJS.ErrnoException) => {
        counters.errors.push(`${backend.url}: answer cut (${error.code ?? error.message})`)
        res.destroy()
      })
    })
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        counters.errors.push(`${backend.url}: answer cut (${error.code ?? error.message})`)
        res.destroy()
        return
      }
      count(502)
      counters.errors.push(`${backend.url}: ${error.code ?? error.message}`)
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway')
    })
    req.pipe(upstream)
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 }, resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const waitFor = (done: () => boolean, ms: number, failure: string) =>
    new Promise<void>((resolve, reject) => {
      const watch = () => {
        if (!done()) return
        watchers.delete(watch)
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        watchers.delete(watch)
        reject(new Error(failure))
      }, ms)
      watchers.add(watch)
      watch()
    })
  const find = (url: string) => backends.find((backend) => backend.url === url)

  return {
    url,
    add: (backendUrl) => {
      const backend: Backend = { url: backendUrl, up: false, failures: 0, probing: false, removed: false }
      backends.push(backend)
      probe(backend)
      backend.timer = setInterval(() => probe(backend), PROBE_MS)
    },
    remove: (backendUrl) => {
      const backend = find(backendUrl)
      if (!backend) return
      backend.removed = true
      clearInterval(backend.timer)
      backends.splice(backends.indexOf(backend), 1)
      changed()
    },
    whenUp: (backendUrl, ms = 15_000) =>
      waitFor(() => find(backendUrl)?.up === true, ms, `${backendUrl} was not in service within ${ms} ms`),
    whenDown: (backendUrl, ms = 15_000) =>
      waitFor(() => find(backendUrl)?.up !== true, ms, `${backendUrl} was still in service after ${ms} ms`),
    inService: () => backends.filter((backend) => backend.up).map((backend) => backend.url),
    counters: () => ({
      ...counters,
      byStatus: { ...counters.byStatus },
      errors: [...counters.errors],
      byBackend: { ...counters.byBackend },
    }),
    close: async () => {
      for (const backend of backends) clearInterval(backend.timer)
      backends.length = 0
      agent.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
