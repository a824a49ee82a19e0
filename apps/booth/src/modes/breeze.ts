/**
 * `breeze` mode: a local endpoint for Breeze Booth's post-processing webhook (a URL such as
 * `http://127.0.0.1:8092/breeze`). Breeze posts each photo as multipart/form-data, the JPEG in
 * `fileToUpload` with its session's fields (`eventkitesessionid`…), and waits for a multipart answer:
 * a JSON metadata part and the image, here passed back unchanged, so the booth goes on as it would.
 * Photos of one Breeze session make one session; it is whole when a photo of another session comes,
 * or by the `--group` rule (by default a pause of 30 s).
 */
import { randomBytes } from 'node:crypto'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { Readable } from 'node:stream'

import type { Connector } from '../connector.js'
import type { SessionRecord } from '../journal.js'
import type { Logger } from '../log.js'
import type { GroupRule } from './grouping.js'
import { listen } from './listen.js'

export type BreezeOptions = { address: { host: string; port: number }; group: GroupRule; state: string }

export async function runBreeze(connector: Connector, options: BreezeOptions, logger: Logger): Promise<() => Promise<void>> {
  const incoming = join(options.state, 'incoming')
  await mkdir(incoming, { recursive: true })
  let current: SessionRecord | undefined = connector.openSessions().at(-1)
  let idle: NodeJS.Timeout | undefined
  let chain = Promise.resolve()
  const inOrder = <T>(work: () => Promise<T>): Promise<T> => {
    const done = chain.then(work)
    chain = done.then(
      () => undefined,
      (error: unknown) => logger.error('fault', `breeze: ${error instanceof Error ? error.message : String(error)}`),
    )
    return done
  }
  const closeCurrent = async () => {
    clearTimeout(idle)
    if (current) await connector.close(current)
    current = undefined
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('POST a photo\n')
    // A photo on its way: the session's pause is not over, however long its upload from Breeze takes.
    clearTimeout(idle)
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value)
    const form = await new Request('http://connector/', {
      method: 'POST',
      headers,
      body: Readable.toWeb(req),
      duplex: 'half',
    })
      .formData()
      .catch(() => undefined)
    const photo = form?.get('fileToUpload')
    if (!form || !(photo instanceof Blob)) {
      return void res.writeHead(400, { 'content-type': 'text/plain' }).end('expected multipart/form-data with fileToUpload\n')
    }
    const given = form.get('eventkitesessionid')
    const breezeSession = typeof given === 'string' ? given : ''
    const path = join(incoming, `${Date.now()}-${randomBytes(4).toString('hex')}.jpg`)
    await writeFile(path, new Uint8Array(await photo.arrayBuffer()))
    const taken = await inOrder(async () => {
      if (current && current.source !== `breeze:${breezeSession}`) await closeCurrent()
      current ??= await connector.open({ source: `breeze:${breezeSession}` })
      const record = current
      const ok = await connector.addPhoto(record, path)
      if (options.group.kind === 'count' && record.photos.length >= options.group.count) await closeCurrent()
      else {
        clearTimeout(idle)
        const seconds = options.group.kind === 'idle' ? options.group.seconds : 30
        idle = setTimeout(() => void inOrder(closeCurrent), seconds * 1000)
      }
      return ok
    })
    // Taken: the connector has its copy. Refused: kept where it is, for the operator to see.
    if (taken) await rm(path, { force: true })
    const answer = new FormData()
    answer.append(
      'metadata',
      JSON.stringify({ status: 'ok', delivered: taken, ...(taken ? {} : { reason: 'set aside: see set-aside.log' }) }),
    )
    answer.append('fileToUpload', photo, photo instanceof File ? photo.name : 'photo.jpg')
    const response = new Response(answer)
    res.writeHead(200, { 'content-type': response.headers.get('content-type')! })
    res.end(Buffer.from(await response.arrayBuffer()))
  }

  const { server, url } = await listen(options.address, handle)
  logger.info('mode.ready', `listening for Breeze's post-processing webhook on ${url}/`)
  return async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    clearTimeout(idle)
    await chain
  }
}
