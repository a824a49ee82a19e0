import { render } from 'preact'

import { Kiosk, KioskProblem } from './app.js'
import { startServiceWorker } from './service-worker.js'

/** The kiosk's address names its event and set: `/kiosk/<event slug>/<set slug>`. */
const [, base, eventSlug, setSlug, ...rest] = location.pathname.split('/').map((part) => decodeURIComponent(part))
const root = document.getElementById('kiosk')!

if (base !== 'kiosk' || !eventSlug || !setSlug || rest.some(Boolean)) render(<KioskProblem problem="notAKioskAddress" />, root)
else render(<Kiosk eventSlug={eventSlug} setSlug={setSlug} />, root)
startServiceWorker()
