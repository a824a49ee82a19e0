import type { ClientLink, ClientOptions as CallOptions } from '@orpc/client'

import { errorFromResponse, NetworkError, TimeoutError, type DeclaredErrors } from './errors.js'
import { resolveRetry, type RetryOptions } from './retry.js'
import { send, type Transport } from './transport.js'
import { SDK_VERSION } from './version.js'

/** What the minified contract (src/generated/contract.json) holds for each route. */
type MinifiedRoute = {
  method?: string
  path: string
  inputStructure?: 'compact' | 'detailed'
  outputStructure?: 'compact' | 'detailed'
}
type MinifiedProcedure = { '~orpc': { errorMap: DeclaredErrors; route: MinifiedRoute; meta?: { idempotencyKey?: boolean } } }

/** What a call can set for itself, as its `context`: `client.kiosk.getContext(input, { signal, context: { timeoutMs: 2000 } })`. */
export type CallContext = {
  /** This call's timeout in ms (until its answer is read; for a stream, until its headers). */
  timeoutMs?: number
  /** This call's retries, over the client's; `false` for none. */
  retry?: RetryOptions | false
  /** This call's whole time in ms, its retries and their pauses included, over the client's `deadlineMs`; 0 for none. */
  deadlineMs?: number
  /**
   * The `Idempotency-Key` to send. Non-GET kiosk, booth and staff calls get one made by the SDK,
   * reused across their retries; give your own to repeat a call across restarts of your app.
   */
  idempotencyKey?: string
  /** Extra request headers for this call. */
  headers?: Record<string, string>
  /** Sees each answer's `Response` (headers: `x-request-id`, `Idempotent-Replayed`, …); do not read its body. */
  onResponse?: (response: Response) => void
}

export type LinkOptions = {
  url: string
  transport: Transport
  headers: () => Record<string, string>
  /** Error codes some routes answer beyond their contract's (the byte routes' 404, 429, 503). */
  extraErrors: Readonly<Record<string, DeclaredErrors>>
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

function appendQuery(query: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined) return
  if (Array.isArray(value)) value.forEach((item, index) => appendQuery(query, `${key}[${index}]`, item))
  else if (value instanceof Date) query.append(key, value.toISOString())
  else if (isObject(value)) for (const [name, item] of Object.entries(value)) appendQuery(query, `${key}[${name}]`, item)
  else query.append(key, `${value as string | number | boolean}`)
}

/** A new `Idempotency-Key`: a random UUID, which the service's minimum length and variety accept. */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID()
  // Outside a secure context (plain http in a browser) randomUUID is missing; getRandomValues is not.
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/**
 * The SDK's link: the contract's routes over fetch, with the SDK's transport (timeouts, retries,
 * typed errors). A stream answer (`outputStructure: 'detailed'`: the byte routes, the CSV export)
 * is handed over unread as `{ status, headers, body: ReadableStream }`.
 */
export class PhotoBoothLink implements ClientLink<CallContext> {
  constructor(
    private readonly contract: unknown,
    private readonly options: LinkOptions,
  ) {}

  async call(path: readonly string[], input: unknown, options: CallOptions<CallContext>): Promise<unknown> {
    const procedure = path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), this.contract) as
      MinifiedProcedure | undefined
    if (!procedure?.['~orpc']) throw new TypeError(`No route at ${path.join('.')}`)
    const { route, errorMap, meta } = procedure['~orpc']
    const declared = { ...errorMap, ...this.options.extraErrors[path.join('.')] }
    const method = route.method ?? 'POST'
    const detailed = route.inputStructure === 'detailed'
    const fields = isObject(input) ? input : {}
    const params = detailed ? (isObject(fields.params) ? fields.params : {}) : fields
    const used = new Set<string>()
    const httpPath = route.path.replace(/\{\+?([^}]+)\}/g, (_, name: string) => {
      used.add(name)
      return encodeURIComponent(String(params[name]))
    })
    const url = new URL(this.options.url)
    url.pathname = `${url.pathname.replace(/\/$/, '')}${httpPath}`
    let body: unknown
    const headers = new Headers({ 'x-photobooth-sdk': SDK_VERSION, ...this.options.headers(), ...options.context.headers })
    if (detailed) {
      for (const [key, value] of Object.entries(isObject(fields.query) ? fields.query : {})) appendQuery(url.searchParams, key, value)
      for (const [key, value] of Object.entries(isObject(fields.headers) ? fields.headers : {})) headers.set(key, String(value))
      body = fields.body
    } else {
      const rest = Object.fromEntries(Object.entries(fields).filter(([key]) => !used.has(key)))
      if (method === 'GET') for (const [key, value] of Object.entries(rest)) appendQuery(url.searchParams, key, value)
      else body = used.size > 0 ? (Object.keys(rest).length > 0 ? rest : undefined) : input
    }
    const json = body === undefined || method === 'GET' ? undefined : JSON.stringify(body)
    if (json !== undefined) headers.set('content-type', 'application/json')
    const { context } = options
    // Only a change the server keeps by key gets one (and may then be retried): elsewhere a key would
    // be ignored, and a retry could act twice (a contact message sent twice).
    const idempotencyKey = meta?.idempotencyKey ? (context.idempotencyKey ?? newIdempotencyKey()) : undefined
    if (idempotencyKey) headers.set('idempotency-key', idempotencyKey)
    const streaming = route.outputStructure === 'detailed'
    return sendKeyed(idempotencyKey, this.options.transport, {
      url: url.href,
      method,
      headers,
      body: () => json,
      signal: options.signal,
      timeoutMs: context.timeoutMs,
      deadlineMs: context.deadlineMs,
      retry: context.retry === undefined ? undefined : resolveRetry(context.retry, this.options.transport.retry),
      repeatable: method === 'GET' || idempotencyKey !== undefined,
      streaming,
      onResponse: context.onResponse,
      fail: (response) => errorFromResponse(response, declared),
      read: async (response) => {
        if (streaming) return { status: response.status, headers: Object.fromEntries(response.headers), body: response.body }
        const text = await response.text()
        if (text === '') return undefined
        return /json/i.test(response.headers.get('content-type') ?? 'json') ? (JSON.parse(text) as unknown) : text
      },
    })
  }
}

/**
 * A call's failure to get any answer (`NetworkError`, `TimeoutError`) names the Idempotency-Key it
 * was sent with: an app can queue the call and send it again later with that key, and the server
 * replays the first answer if the first try did reach it.
 */
async function sendKeyed<T>(idempotencyKey: string | undefined, ...args: Parameters<typeof send<T>>): Promise<T> {
  try {
    return await send(...args)
  } catch (error) {
    if (idempotencyKey && (error instanceof NetworkError || error instanceof TimeoutError)) error.idempotencyKey = idempotencyKey
    throw error
  }
}
