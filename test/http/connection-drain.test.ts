/**
 * The drain (server/src/http/connection-drain.ts) on a plain Node server and raw keep-alive
 * sockets, in well under a second: what test/http/shutdown.test.ts and the SIGTERM drill check
 * under load, one case at a time. Each case is one that http-terminator, stoppable or Node's own
 * `server.close()` gets wrong (docs/architecture.md, "Libraries and hand-written code").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'

import { trackConnections, type ConnectionDrain } from '@photobooth/server/http/connection-drain'
import { afterEach, describe, expect, it } from 'vitest'

type Answer = { status: number; headers: Record<string, string>; body: string }

/** How a client's connection ended: the server's end of the stream, or an error (a reset). */
type Ending = { how: 'end' } | { how: 'error'; code: string | undefined } | { how: 'closed' }

type Client = {
  socket: Socket
  /** The next answer on the connection (they come in order). */
  answer(): Promise<Answer>
  /** Answers read so far. */
  answers: Answer[]
  ended: Promise<Ending>
}

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/**
 * A server with the drain: `/hold` answers when `release()` is called (`held` resolves once it has
 * the request); any other path answers 200 at once.
 */
async function drainedServer() {
  const server = createServer()
  servers.push(server)
  const drain: ConnectionDrain = trackConnections(server)
  let onHeld: () => void = () => {}
  const held = new Promise<void>((resolve) => (onHeld = resolve))
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  server.on(
    'request',
    drain.handle((req: IncomingMessage, res: ServerResponse) => {
      const answer = () => res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok')
      if (req.url !== '/hold') return answer()
      onHeld()
      void released.then(answer)
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, drain, port: (server.address() as AddressInfo).port, held, release }
}

/** A keep-alive connection read as it comes: each answer has a Content-Length. */
async function client(port: number): Promise<Client> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const answers: Answer[] = []
  const waiting: ((answer: Answer) => void)[] = []
  let read = 0
  let buffer = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => {
    buffer += chunk
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      const [statusLine = '', ...lines] = buffer.slice(0, end).split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      )
      const length = Number(headers['content-length'] ?? 0)
      if (buffer.length < end + 4 + length) return
      answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: buffer.slice(end + 4, end + 4 + length) })
      buffer = buffer.slice(end + 4 + length)
      waiting.shift()?.(answers.at(-1)!)
    }
  })
  const ended = new Promise<Ending>((resolve) => {
    socket.once('end', () => resolve({ how: 'end' }))
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ how: 'error', code: error.code }))
    socket.once('close', () => resolve({ how: 'closed' }))
  })
  /** Rejects if the connection ends first (a library that destroys the socket answers nothing). */
  const cut = ended.then((ending) => {
    throw new Error(`the connection ended (${JSON.stringify(ending)}) before its answer`)
  })
  cut.catch(() => {})
  return {
    socket,
    answers,
    ended,
    answer: () => {
      if (read < answers.length) return Promise.resolve(answers[read++]!)
      const next = new Promise<Answer>((resolve) => waiting.push(resolve))
      return Promise.race([next.then((answer) => (read++, answer)), cut])
    },
  }
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`

/** Resolves with the error code of a new connection's attempt, or 'connected'. */
const tryConnect = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve('connected')))
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })

describe('the connection drain', () => {
  it('when the drain begins just after an answer and the client sends its next request at once, then that request is answered, saying Connection: close, and the connection ends without a reset', async () => {
    const { drain, port } = await drainedServer()
    const peer = await client(port)
    peer.socket.write(get('/first'))
    expect((await peer.answer()).headers.connection).toBe('keep-alive')

    // At once, well within IDLE_LINGER_MS (100 ms) of the answer.
    const drained = drain.drain(5_000)
    // Told keep-alive, a busy client sends its next request on the same connection.
    peer.socket.write(get('/next'))

    const next = await peer.answer()
    expect(next).toMatchObject({ status: 200, body: 'ok' })
    expect(next.headers.connection).toBe('close')
    expect(await peer.ended).toEqual({ how: 'end' })
    expect(await drained).toEqual({ forced: 0 })
  })

  it('when a keep-alive connection is idle as the drain begins, then its client reads the end of the stream, not a reset, and a new connection is refused', async () => {
    const { drain, port } = await drainedServer()
    const peer = await client(port)
    peer.socket.write(get('/first'))
    await peer.answer()

    const drained = drain.drain(5_000)

    expect(await tryConnect(port)).toBe('ECONNREFUSED')
    expect(await peer.ended).toEqual({ how: 'end' })
    // The client's half is closed by its pool (allowHalfOpen is off: at once): the drain is done.
    expect(await drained).toEqual({ forced: 0 })
    expect(peer.answers).toHaveLength(1)
  })

  it('when a request is in flight as the drain begins, then its answer says Connection: close and the connection ends after it', async () => {
    const { drain, port, held, release } = await drainedServer()
    const peer = await client(port)
    peer.socket.write(get('/hold'))
    await held

    const drained = drain.drain(5_000)
    release()

    const answer = await peer.answer()
    expect(answer).toMatchObject({ status: 200, body: 'ok' })
    expect(answer.headers.connection).toBe('close')
    expect(await peer.ended).toEqual({ how: 'end' })
    expect(await drained).toEqual({ forced: 0 })
  })

  it('when a request never finishes, then the grace ends its connection and the drain counts it forced; called again, the drain is the same', async () => {
    const { drain, port, held } = await drainedServer()
    const peer = await client(port)
    peer.socket.write(get('/hold'))
    await held

    const drained = drain.drain(200)

    expect(drain.drain(200)).toBe(drained)
    expect(await drained).toEqual({ forced: 1 })
    // Destroyed: with nothing unread on the server's side, the client reads a plain end, and no answer.
    await peer.ended
    expect(peer.answers).toEqual([])
  })
})
