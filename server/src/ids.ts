import { randomBytes } from 'node:crypto'

/** 128 random bits, URL-safe (22 characters): safe to put in public gallery links. */
export function newId(): string {
  return randomBytes(16).toString('base64url')
}
