/**
 * The kiosk's service worker, served as /kiosk/sw.js (scope /kiosk/): it keeps the built app, so
 * that the kiosk starts with the venue's network gone. Every page under /kiosk/ is the app's shell,
 * answered from the cache at once; the hashed files are answered from the cache for good; the
 * event's logo is kept once seen. API calls are not its business: the app's offline queue keeps
 * registrations, and the app keeps its context. The build (vite.config.ts) writes the list of files
 * and their version in place of `self.__KIOSK_BUILD__`.
 */
type Build = { version: string; files: string[] }
type ExtendableEvent = Event & { waitUntil(promise: Promise<unknown>): void }
type FetchEvent = ExtendableEvent & { request: Request; respondWith(response: Promise<Response>): void }
type KioskWorker = {
  __KIOSK_BUILD__: Build
  registration: { scope: string }
  skipWaiting(): Promise<void>
  clients: { claim(): Promise<void> }
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void
}

const worker = self as unknown as KioskWorker
const build = worker.__KIOSK_BUILD__
const APP = `kiosk-app-${build.version}`
const IMAGES = 'kiosk-images'
const scope = new URL(worker.registration.scope)
const shell = new URL('index.html', scope).href

worker.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(APP)
      .then((cache) => cache.addAll(build.files.map((file) => new URL(file, scope).href)))
      .then(() => worker.skipWaiting()),
  )
})

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => name.startsWith('kiosk-app-') && name !== APP).map((name) => caches.delete(name))),
      )
      .then(() => worker.clients.claim()),
  )
})

worker.addEventListener('fetch', (event) => {
  const { request } = event
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (request.mode === 'navigate' && url.origin === scope.origin && url.pathname.startsWith(scope.pathname)) {
    event.respondWith(fromCache(APP, shell, request))
  } else if (url.origin === scope.origin && url.pathname.startsWith(scope.pathname)) {
    event.respondWith(fromCache(APP, request.url, request))
  } else if (request.destination === 'image') {
    event.respondWith(fromCache(IMAGES, request.url, request, true))
  }
})

/** The cached answer, else the network's (kept when `keep`, for the logo). */
async function fromCache(name: string, key: string, request: Request, keep = false): Promise<Response> {
  const cache = await caches.open(name)
  const cached = await cache.match(key)
  if (cached) return cached
  const response = await fetch(request)
  if (keep && (response.ok || response.type === 'opaque')) await cache.put(key, response.clone())
  return response
}
