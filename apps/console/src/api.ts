/**
 * The console's one way to the service: the SDK's staff client (`@photobooth/sdk/staff`, typed from
 * the contract, so that a route's change breaks this build) wrapped by oRPC's TanStack Query
 * integration. The page is on the service's own origin: the browser keeps the HttpOnly session
 * cookie and sends `Origin` with every change, as the staff routes ask.
 */
import { createTanstackQueryUtils } from '@orpc/tanstack-query'
import { createStaffClient, type StaffClient } from '@photobooth/sdk/staff'
import { QueryClient } from '@tanstack/react-query'

import { errorCode } from './errors.js'

export const client: StaffClient = createStaffClient({
  baseUrl: location.origin,
  // A staff screen shows a failure in words rather than spinning: one quick try again, then the error.
  retry: { retries: 1 },
  deadlineMs: 20_000,
})

export const api = createTanstackQueryUtils(client.staff)

/** What a route answers, by its client: `Output<typeof client.staff.events.get>`. */
export type Output<T> = T extends (...args: never[]) => Promise<infer O> ? O : never
export type StaffEvent = Output<typeof client.staff.events.get>
export type StaffSession = Output<typeof client.staff.sessions.get>
export type StaffMessage = StaffSession['guests'][number]['messages'][number]
export type StaffMember = Output<typeof client.staff.members.me>
export type Role = StaffMember['role']

/** When the session is gone (signed out elsewhere, expired, the member removed), every screen goes back to sign-in. */
export const queryClient: QueryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // The SDK already retried a network failure or a 5xx: an answer (a 404, a 403) is final.
      retry: false,
      staleTime: 5_000,
      refetchOnWindowFocus: true,
    },
  },
})

/** Once: the member's own query, reset, asks again and shows the sign-in when that answers 401 too. */
const signedOut = (error: unknown) => {
  const me = api.members.me.queryKey()
  if (errorCode(error) === 'unauthorized' && queryClient.getQueryData(me) !== undefined) void queryClient.resetQueries({ queryKey: me })
}
queryClient.getQueryCache().subscribe((event) => {
  if (event.type === 'updated' && event.action.type === 'error') signedOut(event.action.error)
})
queryClient.getMutationCache().subscribe((event) => {
  if (event.type === 'updated' && event.action.type === 'error') signedOut(event.action.error)
})
