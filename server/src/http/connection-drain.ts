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
