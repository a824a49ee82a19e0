import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/** `host:port` (or a port alone, on 127.0.0.1: the booth software runs on the same PC). */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(.+):)?(\d{1,5})$/.exec(text)
  const port = Number(match?.[2])
  if (!match || port > 65_535) throw new Error(`--listen ${text}: expected <port> or <host>:<port>`)
  return { host: match[1] ?? '127.0.0.1', port }
}

/** A small HTTP server for the booth software's calls; resolves once it listens, with its address. */
export async function listen(
  address: { host: string; port: number },
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`error: ${error instanceof Error ? error.message : String(error)}\n`)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(address.port, address.host, () => resolve())
  })
  const { port } = server.address() as { port: number }
  return { server, url: `http://${address.host}:${port}` }
}
