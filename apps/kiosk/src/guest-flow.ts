/**
 * What the kiosk needs once its first screen is up, in a file of its own so that the first screen
 * waits for none of it: the form, the notice, and the offline queue (which starts sending what an
 * earlier run left as soon as it loads).
 */
import { createOfflineQueue, indexedDbStore } from '@photobooth/sdk/queue'

import { client } from './client.js'

export { fieldErrorsOf } from './fields.js'
export { GuestForm } from './form.js'
export { NoticeDialog } from './notice.js'

/** Registrations go through the SDK's offline queue: sent at once when the service answers, else kept in IndexedDB, in order. */
export const queue = createOfflineQueue({ client, store: indexedDbStore('photobooth-kiosk') })
