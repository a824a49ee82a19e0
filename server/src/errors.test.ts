import { validateORPCError } from '@orpc/server'
import { contract, ERROR_CODE_LIST, ERROR_CODE_TABLE } from '@photobooth/sdk/contract'
import { describe, expect, it } from 'vitest'

import { AppError, encodeErrorBody } from './errors.js'

/** Every procedure of the contract, by its path, with the errors it declares. */
function proceduresOf(router: object, path: string[] = []): [string, Parameters<typeof validateORPCError>[0]][] {
  return Object.entries(router).flatMap(([name, node]: [string, unknown]) => {
    if (node === null || typeof node !== 'object') return []
    if ('~orpc' in node)
      return [[[...path, name].join('.'), (node as { '~orpc': { errorMap: Parameters<typeof validateORPCError>[0] } })['~orpc'].errorMap]]
    return proceduresOf(node, [...path, name])
  })
}

describe('an AppError', () => {
  it("when made from any of the domain's codes, then its code is that code and its status is the table's: it has one code", () => {
    for (const code of ERROR_CODE_LIST) {
      const error = new AppError(code, 'text')
      expect({ code: error.code, status: error.status, data: error.data }).toEqual({
        code,
        status: ERROR_CODE_TABLE[code].status,
        data: { code },
      })
    }
  })

  it('when any procedure of the contract throws one, then oRPC passes it on as it is, and its body carries its code and fields', async () => {
    const procedures = proceduresOf(contract)
    expect(procedures.length).toBeGreaterThan(50)
    for (const [path, errorMap] of procedures)
      for (const code of ERROR_CODE_LIST) {
        const error = new AppError(code, 'text', { field: 'guests.1.phone' })
        // oRPC re-makes an error its procedure declares (matched by oRPC's code): a domain code never is one.
        expect(await validateORPCError(errorMap, error), `${path} ${code}`).toBe(error)
        expect(encodeErrorBody(error)).toEqual({ error: 'text', code, field: 'guests.1.phone' })
      }
  })
})
