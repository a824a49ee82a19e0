import { render } from 'preact'

import { Kiosk, KioskProblem, readContext } from './app.js'
import { readCachedContext } from './context-cache.js'
import { startServiceWorker } from './service-worker.js'

/** The kiosk's address names its event and set: `/kiosk/<event slug>/<set slug>`. */
const [, base, eventSlug, setSlug, ...rest] = location.pathname.split('/').map((part) => decodeURIComponent(part))
const root = document.getElementById('kiosk')!

/** How long a first start waits for its context (preloaded with the page) before it shows "Loading…". */
const FIRST_CONTEXT_WAIT_MS = 600

if (base !== 'kiosk' || !eventSlug || !setSlug || rest.some(Boolean)) render(<KioskProblem problem="notAKioskAddress" />, root)
else {
  const first = readContext(eventSlug, setSlug)
  // A kiosk that has kept its context starts with it at once; a first start waits a moment for it,
  // so that its first screen is the welcome, not a flash of "Loading…".
  // (No top-level await: it would split the app's shared code into a chunk of its own, a request more.)
  const initial = readCachedContext(eventSlug, setSlug)
    ? Promise.resolve(undefined)
    : Promise.race([first, new Promise<undefined>((resolve) => setTimeout(resolve, FIRST_CONTEXT_WAIT_MS))])
  void initial.then((reading) => render(<Kiosk eventSlug={eventSlug} setSlug={setSlug} first={first} initial={reading} />, root))
}
startServiceWorker()
