import { z } from 'zod'

import { ERROR_CODE_LIST } from '../error-codes.js'

/**
 * The closed list of the stable codes every JSON `{ error }` answer carries in `code`, as a zod enum:
 * the server types its errors with it and the OpenAPI document lists it (`ErrorBody.code`). Built
 * from `ERROR_CODE_TABLE` (../error-codes.ts), which holds each code's status and meaning.
 */
export const ErrorCode = z.enum(ERROR_CODE_LIST)
export type ErrorCode = z.infer<typeof ErrorCode>

export { ERROR_CODE_LIST, ERROR_CODE_TABLE, genericErrorCode, isErrorCode } from '../error-codes.js'
