/**
 * The properties every answer must have (the issue's, from docs/api.md's Errors section and the
 * spec's section 7, and issue 23's stable `code` on every JSON error), and the grouping of failures
 * into classes for the report.
 */
import { ERROR_CODE_TABLE, isErrorCode } from '@photobooth/sdk/contract'

import { documentedCodes, routeOf } from './openapi.js'
import type { Exchange, ParsedResponse, WireRequest } from './wire.js'

export const SECURITY_HEADERS = ['strict-transport-security', 'x-frame-options', 'x-content-type-options', 'referrer-policy'] as const

export type Problem = {
  /** What is wrong: `status >= 500`, `missing security headers`, `body not in the spec's shapes` (joined with ` + ` when several), `process died`, `process unresponsive`. */
  kind: string
  /** The failure class: the kind, the status, and the route (or `Node` for Node's own answers, which come before any routing). */
  key: string
  detail: string
}

/** Node's own refusals (a bad request line, oversized headers, 417) carry no Date header; Express's answers all do. */
export const isNodeRefusal = (response: ParsedResponse) => response.headers.date === undefined

const preview = (body: Buffer) => JSON.stringify(body.subarray(0, 160).toString('utf8'))

/** Every JSON error answer carries a `code` of the closed list (ERROR_CODE_TABLE), answered with that code's own status. */
function codeProblem(code: unknown, status: number): string | undefined {
  if (!isErrorCode(code)) return `an error answer without a known code (${JSON.stringify(code)})`
  const expected = ERROR_CODE_TABLE[code].status
  return expected === status ? undefined : `code ${code} (a ${expected}) answered with ${status}`
}

function shapeProblem(response: ParsedResponse): string | undefined {
  const { status } = response
  const method = response.answers?.method
  const after = response.bodyAfterBodiless
  let body = response.body
  if (method === 'HEAD') {
    if (body.length === 0 && !after) return undefined
    // A request line that does not parse (RFC 9112, section 3: a space, a control character or a
    // byte over 0x7e in the target) names no method: Node's refusal of it may be the JSON of any.
    const unparsed = isNodeRefusal(response) && !/^[\x21-\x7e]+$/.test(response.answers?.target ?? '')
    if (!unparsed) return `a HEAD answered with a body: ${preview(after ?? body)}`
    body = after ?? body
  }
  if (status === 204 || status === 304) return body.length === 0 && !after ? undefined : `${status} with a body: ${preview(after ?? body)}`
  if (status < 300) return undefined // 2xx: any shape
  const type = (response.headers['content-type']?.[0] ?? '').toLowerCase()
  const text = body.toString('utf8')
  if (type.startsWith('application/json')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return `application/json that does not parse: ${preview(body)}`
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const { error, success, code } = parsed as { error?: unknown; success?: unknown; code?: unknown }
      // Node's own refusals (a malformed request line or header) come before any route: not a route's answer.
      const listed =
        response.answers && !isNodeRefusal(response) ? documentedCodes(response.answers.method, response.answers.target, status) : undefined
      const problem =
        codeProblem(code, status) ??
        (listed && !listed.includes(code)
          ? `code ${String(code)}, which its route's ${status} does not list (${listed.join(', ')})`
          : undefined)
      if (typeof error === 'string') return problem && `${problem}: ${preview(body)}`
      if (success === false && error !== null && typeof error === 'object') {
        const { name, message } = error as { name?: unknown; message?: unknown }
        // The spec's validator shape, exactly: nothing beside it.
        if (typeof name === 'string' && typeof message === 'string' && code === undefined) return undefined
      }
    }
    return `JSON that is neither { error: string } nor { success: false, error: { name, message } }: ${preview(body)}`
  }
  if (type.startsWith('text/plain')) {
    if (status === 401 && text === 'Unauthorized') return undefined
    if (status === 404 && text === 'Not Found') return undefined
    return `plain text other than 401 Unauthorized / 404 Not Found: ${preview(body)}`
  }
  if (type.startsWith('application/xml')) {
    // The local bucket answers its uploads as S3 does; nothing else speaks XML.
    const path = response.answers ? routeOf(response.answers.method, response.answers.target).path : undefined
    if (method === 'PUT' && path?.startsWith('/photos/') && /^<\?xml[^>]*\?>\s*<Error><Code>\w+<\/Code>/.test(text)) return undefined
    return `XML outside PUT /photos/*: ${preview(body)}`
  }
  if (type.startsWith('text/html')) {
    // The guest's pages (/g/…) answer a missing gallery or event with a page of their own.
    const target = response.answers?.target ?? ''
    if (status === 404 && /^\/g(\/|$)/.test(new URL(target, 'http://x').pathname) && text.includes('data-page="missing"')) return undefined
    return `HTML outside the guest's pages' 404: ${preview(body)}`
  }
  return `Content-Type ${JSON.stringify(type)} with ${body.length === 0 ? 'an empty body' : preview(body)}`
}

/**
 * Every failure of one exchange (no failures: an empty list), one per answer at fault: its class
 * is what is wrong with it (all of it), its status, and where it came from.
 */
export function checkExchange(request: WireRequest, exchange: Exchange): Problem[] {
  const problems: Problem[] = []
  for (const response of exchange.responses) {
    const faults: [kind: string, detail: string][] = []
    if (response.status >= 500) faults.push(['status >= 500', preview(response.body)])
    const missing = SECURITY_HEADERS.filter((name) => !response.headers[name]?.length)
    if (missing.length > 0) faults.push(['missing security headers', `no ${missing.join(', ')}`])
    const shape = shapeProblem(response)
    if (shape !== undefined) faults.push(["body not in the spec's shapes", shape])
    if (faults.length === 0) continue
    const asked = response.answers ?? { method: request.method, target: request.target }
    const where = isNodeRefusal(response) ? 'Node' : response.answers ? routeOf(asked.method, asked.target).route : 'trailing bytes'
    const kind = faults.map(([what]) => what).join(' + ')
    problems.push({
      kind,
      key: `${kind} · ${response.status} · ${where}`,
      detail: `${response.status} ${response.reason}: ${faults.map(([, detail]) => detail).join('; ')}`,
    })
  }
  return problems
}
