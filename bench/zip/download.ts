import { connect, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'

import { Broken, MiB } from './protocol.js'

export type Download = {
  firstByteMs: number
  headersMs: number
  totalMs: number
  bytes: number
  contentLength: string | undefined
  /** The last 64 bytes of the body. */
  tail: Buffer
}

let inFlight: Socket | undefined

/** Cuts the download in flight, if any (Ctrl-C). */
export function cutDownload(): void {
  inFlight?.destroy()
}

/**
 * GET the zip and consume it as fast as it comes, counting its bytes and keeping only the last 64.
 * The client is a bare socket reading into one reused buffer, with just enough HTTP/1.1 to find
 * the status, headers and body: like `curl -o /dev/null`, it costs little CPU and makes no garbage,
 * so that on a 2-core machine the measuring instrument does not slow the server it measures (Node's
 * HTTP client, allocating a buffer per read, took most of a core, GC included).
 */
export function download(url: string, contentType: string): Promise<Download> {
  const { hostname, port, pathname } = new URL(url)
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let headersMs = 0
    let firstByteMs = -1
    let head: Buffer | undefined = Buffer.alloc(0) // the status line and headers, until the blank line
    let contentLength: string | undefined
    let expected = Infinity
    let bytes = 0
    const tail = Buffer.alloc(64)
    let tailBytes = 0
    let settled = false
    const settle = (error?: Error) => {
      if (settled) return
      settled = true
      inFlight = undefined
      socket.destroy()
      if (error) return reject(error)
      resolve({ firstByteMs, headersMs, totalMs: performance.now() - started, bytes, contentLength, tail: tail.subarray(64 - tailBytes) })
    }
    const body = (chunk: Buffer) => {
      if (chunk.length === 0) return
      if (firstByteMs < 0) firstByteMs = performance.now() - started
      bytes += chunk.length
      // Shift the last 64 bytes along: the read buffer is reused, so they are copied out.
      const keep = Math.min(64, chunk.length)
      tail.copy(tail, 0, keep)
      chunk.copy(tail, 64 - keep, chunk.length - keep)
      tailBytes = Math.min(64, tailBytes + keep)
      if (bytes > expected) settle(new Broken(`GET ${url}: more bytes than the Content-Length of ${expected}`))
      else if (bytes === expected) settle()
    }
    const socket = connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer: Buffer.allocUnsafe(MiB),
        callback: (length, buffer) => {
          received(Buffer.from(buffer.buffer, buffer.byteOffset, length))
          return true
        },
      },
    })
    const received = (chunk: Buffer) => {
          if (!head) return body(chunk)
          head = Buffer.concat([head, chunk])
          const blank = head.indexOf('\r\n\r\n')
          if (blank < 0) return
          headersMs = performance.now() - started
          const [status, ...lines] = head.subarray(0, blank).toString('latin1').split('\r\n')
          const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
          const rest = head.subarray(blank + 4)
          head = undefined
          if (!/^HTTP\/1\.1 200 /.test(status ?? '') || headers.get('content-type') !== contentType) {
            return settle(new Broken(`GET ${url}: ${status} ${headers.get('content-type')}`))
          }
          contentLength = headers.get('content-length')
          if (contentLength !== undefined) expected = Number(contentLength)
          body(rest)
    }
    socket.once('connect', () => socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`))
    // Without a Content-Length, the end of the connection ends the body.
    socket.once('end', () => (expected === Infinity && !head ? settle() : settle(new Broken(`GET ${url}: the response was cut off after ${bytes} bytes`))))
    socket.once('error', (error) => settle(error))
    inFlight = socket
  })
}
