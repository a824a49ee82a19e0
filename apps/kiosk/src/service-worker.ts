/**
 * The service worker (src/sw.ts, built to /kiosk/sw.js) keeps the app for offline starts. A new
 * build is taken at the next start: its worker takes over at once, and the kiosk reloads the next
 * time its welcome screen shows (`updateWaiting`), never under a guest's fingers.
 */
let updated = false

export function startServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return
  const hadController = navigator.serviceWorker.controller !== null
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (hadController) updated = true
  })
  void navigator.serviceWorker.register(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL }).catch(() => {
    // No worker (a browser that refuses it): the kiosk works while online, and its queue still keeps registrations.
  })
}

/** Whether a newer build has taken over and the page should reload when no guest is at it. */
export const updateWaiting = () => updated
