import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Readable, Writable } from 'node:stream'

import { describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'
import { until } from '../support/until.js'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

const app = withTestServer()

type CdpEvent = { method: string; params: Record<string, unknown>; sessionId?: string }

/**
 * Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4
 * out, messages ended by NUL): no WebSocket, no extra package.
 */
class Chromium {
  readonly events: CdpEvent[] = []
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }>()

  private constructor(private readonly process: ChildProcess) {
    let buffer = ''
    ;(process.stdio[4] as Readable).on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8')
      let end
      while ((end = buffer.indexOf('\0')) !== -1) {
        const message = JSON.parse(buffer.slice(0, end)) as {
          id?: number
          result?: Record<string, unknown>
          error?: { message: string }
        } & CdpEvent
        buffer = buffer.slice(end + 1)
        if (message.id === undefined) {
          this.events.push(message)
          continue
        }
        const waiting = this.pending.get(message.id)
        this.pending.delete(message.id)
        if (message.error) waiting?.reject(new Error(message.error.message))
        else waiting?.resolve(message.result ?? {})
      }
    })
  }

  static launch(profile: string): Chromium {
    const child = spawn(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--remote-debugging-pipe',
        `--user-data-dir=${profile}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
    )
    return new Chromium(child)
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++
    const promise = new Promise<Record<string, unknown>>((resolve, reject) => this.pending.set(id, { resolve, reject }))
    ;(this.process.stdio[3] as Writable).write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`)
    return promise
  }

  /** Resolves once Chromium itself has exited: its profile can then be removed. */
  async kill(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return
    const exited = once(this.process, 'exit')
    this.process.kill('SIGKILL')
    await exited
  }
}

describe('the API reference at /docs', () => {
  it('when opened in Chromium, then it loads the served document and lists every operation, with no console error and no request to another origin', async () => {
    const document = JSON.parse(await readFile(resolve(import.meta.dirname, '../../openapi/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>
    }
    const expected = Object.entries(document.paths)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => METHODS.includes(key))
          .map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort()

    // The page, as served: helmet's CSP included, no route-specific one.
    const answer = await fetch(`${app.url}/docs`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/)
    expect(answer.headers.get('content-security-policy')).toMatch(/script-src 'self'/)
    expect(await answer.text()).not.toMatch(/<script>|https?:\/\//)

    const profile = await mkdtemp(join(tmpdir(), 'photobooth-chromium-'))
    const browser = Chromium.launch(profile)
    try {
      const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' })
      const { sessionId } = (await browser.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string }
      for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await browser.send(`${domain}.enable`, {}, sessionId)
      await browser.send('Page.navigate', { url: `${app.url}/docs` }, sessionId)

      const evaluate = async <T>(expression: string): Promise<T> =>
        ((await browser.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)) as { result: { value: T } }).result.value
      const listed = await until(
        () =>
          evaluate<string[]>(
            `[...document.querySelectorAll('.opblock')].map((block) => block.querySelector('.opblock-summary-method')?.textContent + ' ' + block.querySelector('.opblock-summary-path')?.getAttribute('data-path'))`,
          ),
        (operations) => operations.length >= expected.length,
        30_000,
      )
      expect([...listed].sort()).toEqual(expected)
      // The document's own title, rendered from /openapi.json.
      expect(await evaluate<string>(`document.querySelector('.info .title')?.textContent ?? ''`)).toContain('Photo Booth Service')
      // A reader can try a route: opened, an operation shows its example request and answer.
      await evaluate(`document.querySelector('#operations-Kiosk-registerGuests .opblock-summary-control')?.click()`)
      const opened = await until(
        () => evaluate<string>(`document.querySelector('#operations-Kiosk-registerGuests')?.textContent ?? ''`),
        (text) => text.includes('Ada Lovelace') && text.includes('Try it out'),
        30_000,
      )
      expect(opened).toContain('ada@example.org')
      // The filter box (`filter: true`): typing a tag's name leaves that tag's operations alone.
      expect(await evaluate<boolean>(`document.querySelector('.operation-filter-input') !== null`)).toBe(true)
      await evaluate(`(() => {
        const input = document.querySelector('.operation-filter-input')
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, 'Kiosk')
        input.dispatchEvent(new Event('input', { bubbles: true }))
      })()`)
      const filtered = await until(
        () => evaluate<string[]>(`[...document.querySelectorAll('.opblock-tag')].map((tag) => tag.getAttribute('data-tag'))`),
        (tags) => tags.length === 1,
        10_000,
      )
      expect(filtered).toEqual(['Kiosk'])
      // Give late requests (fonts, images, a validator badge) a moment to show up.
      await new Promise((resolve) => setTimeout(resolve, 1_000))

      const origin = new URL(app.url).origin
      const requested = browser.events
        .filter((event) => event.method === 'Network.requestWillBeSent')
        .map((event) => (event.params.request as { url: string }).url)
      expect(requested).toContain(`${origin}/openapi.json`)
      expect(requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin)).toEqual([])

      const errors = browser.events.flatMap((event) => {
        if (event.method === 'Runtime.exceptionThrown') return [JSON.stringify(event.params.exceptionDetails)]
        if (event.method === 'Runtime.consoleAPICalled' && ['error', 'assert'].includes(event.params.type as string))
          return [JSON.stringify(event.params.args)]
        const entry = event.params.entry as { level?: string; text?: string } | undefined
        if (event.method === 'Log.entryAdded' && entry?.level === 'error') return [entry.text ?? '']
        return []
      })
      expect(errors).toEqual([])
      const failed = browser.events.filter((event) => event.method === 'Network.loadingFailed').map((event) => event.params)
      expect(failed).toEqual([])
    } finally {
      await browser.kill()
      // Chromium's helper processes may still be writing into the profile for a moment after it exits.
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })
    }
  }, 60_000)
})
