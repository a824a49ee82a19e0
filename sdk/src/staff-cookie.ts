import type { FetchLike } from './transport.js'

const SESSION_COOKIE = /^((?:__Secure-)?photobooth\.session_token)=([^;]*)/

/** A fetch that holds the staff session cookie between calls, for clients without a cookie jar. */
export function withStaffCookie(fetch: FetchLike, origin: string): FetchLike {
  let cookie: string | undefined
  return async (input, init) => {
    const request = new Request(input, init)
    if (cookie) request.headers.set('cookie', cookie)
    request.headers.set('origin', origin)
    const response = await fetch(request)
    for (const line of response.headers.getSetCookie()) {
      const match = SESSION_COOKIE.exec(line)
      // Sign-out answers an empty value: the session is over.
      if (match) cookie = match[2] ? `${match[1]}=${match[2]}` : undefined
    }
    return response
  }
}
