import type { Response } from 'express'
import type { z } from 'zod'

import { encodeErrorBody, errorBody, schemaFailure, type ErrorAnswer } from '../errors.js'

export { errorBody } from '../errors.js'

/**
 * The error answers the HTTP edge writes itself, in one place: every other error is an ORPCError,
 * shaped by `encodeErrorBody` (errors.ts) and written by oRPC. The API has three shapes: JSON
 * `{ error }`, the bare plain texts `Not Found` (byte routes) and `Unauthorized` (booth routes), and
 * the local bucket's S3-style XML.
 */
export function sendError(res: Response, status: number, body: ErrorAnswer): void {
  res.status(status).json(body)
}

/** A 400 in the validator's shape, as oRPC answers its routes' schema failures: for the routes Express answers itself. */
export function sendInvalid(res: Response, issues: z.core.$ZodIssue[]): void {
  sendError(res, 400, encodeErrorBody(schemaFailure(issues)))
}

export function sendPlain(res: Response, status: 401 | 404): void {
  res
    .status(status)
    .type('text/plain')
    .send(status === 401 ? 'Unauthorized' : 'Not Found')
}

/** As S3 answers a PUT, so that a booth app handles both buckets the same way. */
export function sendS3Error(res: Response, status: number, code: string, message: string): void {
  const escape = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)
  res
    .status(status)
    .type('application/xml')
    .send(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escape(message)}</Message></Error>`)
}

/** What no route answers (OPTIONS included, on every path): `{ "error": "Not Found" }`. */
export const NOT_FOUND_BODY = errorBody('not_found', 'Not Found')
