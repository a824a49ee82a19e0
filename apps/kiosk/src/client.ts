import { createKioskClient } from '@photobooth/sdk/kiosk'

/** Calls the service from the page's own origin; a slow answer becomes a queued registration, not a long wait. */
export const client = createKioskClient({ baseUrl: location.origin, timeoutMs: 8000, deadlineMs: 10_000, retry: false })
