import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The content system's published contact page on loopback: it can answer, be slow, be down, or change. */
export type FakeCms = {
  url: string
  page: unknown
  mode: 'up' | 'down' | 'slow'
  requests: number
  close(): Promise<void>
}

export async function startFakeCms(page: unknown): Promise<FakeCms> {
  const cms: FakeCms = { url: '', page, mode: 'up', requests: 0, close: async () => {} }
  const server = createServer((_req, res) => {
    cms.requests++
    if (cms.mode === 'down') return void res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Maintenance</h1>')
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(cms.page)),
      cms.mode === 'slow' ? 300 : 0,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cms.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/pages/contact`
  cms.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return cms
}

/** A page as a headless CMS publishes it: the labels sit deep inside; the field labelled Email is typed as one. */
export const contactPage = (labels: string[]) => ({
  data: { attributes: { title: 'Contact', form: labels.map((label) => ({ label, type: label === 'Email' ? 'email' : 'text' })) } },
})
