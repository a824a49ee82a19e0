/**
 * `dslrbooth` mode: a local endpoint for dslrBooth's (LumaBooth for Windows) URL triggers (Settings >
 * General > Triggers, a URL such as `http://127.0.0.1:8091/dslrbooth`). dslrBooth calls it with
 * `event_type` and its parameters `param1`, `param2`…: `session_start` opens a session,
 * `processing_start` names the original photos (`param1`, several separated by `|`) and the final
 * file (`param2`), `session_end` closes it; the other events are acknowledged. The files are read
 * where dslrBooth keeps them (once their size has settled), never changed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

import type { Connector } from '../connector.js'
import type { SessionRecord } from '../journal.js'
import type { Logger } from '../log.js'
import { listen } from './listen.js'
import { whenStable } from './stable.js'

export type DslrBoothOptions = {
  address: { host: string; port: number }
  /** Which files of `processing_start` to deliver. */
  files: 'originals' | 'final' | 'both'
  stableSeconds: number
}

/** The file names of a parameter: one, or several separated by `|` (or `;`). */
const filesIn = (value: string | null) =>
  (value ?? '')
    .split(/[|;]/)
    .map((name) => name.trim())
    .filter((name) => name !== '')

export async function runDslrBooth(connector: Connector, options: DslrBoothOptions, logger: Logger): Promise<() => Promise<void>> {
  let current: SessionRecord | undefined = connector.openSessions().at(-1)
  let chain = Promise.resolve()
  const inOrder = (work: () => Promise<void>) => {
    chain = chain
      .then(work)
      .catch((error: unknown) => logger.error('fault', `dslrbooth: ${error instanceof Error ? error.message : String(error)}`))
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://connector')
    // dslrBooth sends a GET; a form POST of the same fields is read too.
    const params = req.method === 'POST' ? new URLSearchParams(await bodyOf(req)) : url.searchParams
    const event = params.get('event_type')
    res.writeHead(event ? 200 : 400, { 'content-type': 'text/plain' }).end(event ? 'OK\n' : 'expected event_type\n')
    if (!event) return
    logger.info('dslrbooth.trigger', `dslrBooth: ${event}`, { trigger: event })
    switch (event) {
      case 'session_start':
        return inOrder(async () => {
          // A session dslrBooth never ended (it was closed, the PC restarted) is whole as it is.
          if (current) await connector.close(current)
          current = await connector.open({ source: 'dslrbooth' })
        })
      case 'processing_start': {
        const originals = options.files === 'final' ? [] : filesIn(params.get('param1'))
        const final = options.files === 'originals' ? [] : filesIn(params.get('param2'))
        return inOrder(async () => {
          current ??= await connector.open({ source: 'dslrbooth' })
          for (const path of [...originals, ...final]) {
            await whenStable(path, options.stableSeconds * 1000)
            await connector.addPhoto(current, path)
          }
        })
      }
      case 'session_end':
        return inOrder(async () => {
          if (current) await connector.close(current)
          current = undefined
        })
    }
  }

  const { server, url } = await listen(options.address, handle)
  logger.info('mode.ready', `listening for dslrBooth's URL triggers on ${url}/ (Settings > General > Triggers)`)
  return async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await chain
  }
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) {
    text += String(chunk)
    if (text.length > 64 * 1024) break
  }
  return text
}
