/**
 * The drain is ours, not a library's. Each alternative was run in place of this file against the
 * test that pins it (test/http/shutdown.test.ts, "when SIGTERM comes while keep-alive connections
 * are busy": 8 busy keep-alive clients and 3 registrations held mid-body; every connection must end
 * on an answer saying `Connection: close`, and the clients' only failures be ECONNREFUSED), three
 * runs each on 2026-11-28; this file passed 3 of 3, each alternative 0 of 3:
 * - http-terminator 3.2.0: 3 to 5 connections cut after a keep-alive answer, 8 resets a run. Its
 *   `terminate()` destroys every socket with no response in progress (a request already on its way
 *   gets a reset), and keeps listening until its sockets are gone or the grace is over, destroying
 *   each new connection (a reset, not a refusal that a client or balancer retries elsewhere).
 * - stoppable 1.1.0: the held registrations answered `keep-alive`, 8 connections cut, 8 resets a
 *   run. It never says `Connection: close`; it ends a socket as its response finishes, while the
 *   client, told keep-alive, sends its next request; and its close is http's (below).
 * - Node 20's `server.close()`, which calls `closeIdleConnections()`, with our `Connection: close`:
 *   1 to 3 connections cut, as many resets a run. Idle keep-alive sockets are destroyed, not ended.
 * The SIGTERM drill on the built server (test/drills/sigterm.test.ts, 64 connections) fails the same
 * way: 3 connections cut with http-terminator, 1 with Node's `close()`, one run each.
 * test/http/connection-drain.test.ts pins the cases one at a time; its first (the next request
 * sent as the drain begins) fails with each of the three.
 * docs/architecture.md, "Libraries and hand-written code", has the figures.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'

export type ConnectionDrain = {
  /**
   * Wraps the request listener: counts each connection's requests in flight, and once the drain
   * has begun answers with `Connection: close`.
   */
  handle: (listener: RequestListener) => RequestListener
  /**
   * Stops accepting connections; requests in flight are answered with `Connection: close`, each
   * connection is closed as soon as its last response is done, idle keep-alive connections at once
   * (after IDLE_LINGER_MS if a response has just finished on them).
   * Resolves when every connection is closed, or when `graceMs` ran out and the rest were
   * destroyed (`forced` counts those). Called again, returns the same drain.
   */
  drain: (graceMs: number) => Promise<{ forced: number }>
}

type Connection = {
  inFlight: Set<ServerResponse>
  closing: boolean
  /** When its last response was done (or it was accepted). */
  idleSince: number
  recheck?: NodeJS.Timeout
}

/**
 * How long a connection that has just finished a response is left open in the drain, for the
 * next request a busy client is already sending: it is answered (with `Connection: close`)
 * instead of being lost to the close. Past this, an idle connection is closed.
 */
const IDLE_LINGER_MS = 100

/**
 * The graceful half of shutting an HTTP server down, which Node's `server.close()` does not do:
 * it stops listening and destroys idle sockets, but keeps serving a busy keep-alive connection for
 * as long as its client sends, and a destroyed socket with a request already in its receive buffer
 * answers that request with a TCP reset.
 */
export function trackConnections(server: Server): ConnectionDrain {
  const connections = new Map<Socket, Connection>()
  let draining = false
  let drained: Promise<{ forced: number }> | undefined

  /**
   * A connection with nothing in flight (for IDLE_LINGER_MS) is half-closed: the client reads the
   * end of the stream (not a reset) and its pool drops the connection, which then closes from both
   * sides. A request that still arrives on it (sent as the end was on its way) cannot be answered:
   * it is dropped before anything handles it, so that nothing is done on its behalf.
   */
  const closeIfIdle = (socket: Socket, connection: Connection) => {
    clearTimeout(connection.recheck)
    if (connection.inFlight.size > 0 || connection.closing) return
    const wait = connection.idleSince + IDLE_LINGER_MS - Date.now()
    if (wait > 0) return void (connection.recheck = setTimeout(() => closeIfIdle(socket, connection), wait))
    connection.closing = true
    if (!socket.destroyed && !socket.writableEnded) socket.end()
  }

  server.on('connection', (socket: Socket) => {
    const connection: Connection = { inFlight: new Set(), closing: false, idleSince: Date.now() }
    connections.set(socket, connection)
    socket.once('close', () => {
      clearTimeout(connection.recheck)
      connections.delete(socket)
    })
    if (draining) closeIfIdle(socket, connection)
  })

  const handle =
    (listener: RequestListener): RequestListener =>
    (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket
      const connection = connections.get(socket)
      if (connection?.closing) return void socket.destroy()
      if (draining) res.setHeader('Connection', 'close')
      if (connection) {
        connection.inFlight.add(res)
        res.once('close', () => {
          connection.inFlight.delete(res)
          if (connection.inFlight.size === 0) connection.idleSince = Date.now()
          if (draining) closeIfIdle(socket, connection)
        })
      }
      listener(req, res)
    }

  const drain = (graceMs: number) =>
    (drained ??= new Promise((resolve) => {
      draining = true
      let forced = 0
      const graceOver = setTimeout(() => {
        forced = connections.size
        for (const [socket, connection] of connections) {
          clearTimeout(connection.recheck)
          socket.destroy()
        }
      }, graceMs)
      // net's close, not http's: http's destroys the idle sockets (a reset for a request already
      // on its way), which closeIfIdle ends instead. (http's would also stop its timer that checks
      // request timeouts; unreferenced, it is left to run.)
      NetServer.prototype.close.call(server, () => {
        clearTimeout(graceOver)
        resolve({ forced })
      })
      for (const [socket, connection] of connections) {
        // The response has not started: it says that it is the connection's last.
        for (const res of connection.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close')
        closeIfIdle(socket, connection)
      }
    }))

  return { handle, drain }
}
