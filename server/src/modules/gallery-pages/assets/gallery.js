// The guest's pages are whole without this script: it adds the view and share beacons, sharing,
// the full-size viewer, and the wait for photos that are on their way.
;(() => {
  'use strict'

  /** POST /track takes text/plain so that a beacon needs no preflight (the spec's intent). */
  const track = (beacon) => {
    const body = JSON.stringify(beacon)
    if (navigator.sendBeacon && navigator.sendBeacon('/track', body)) return
    fetch('/track', { method: 'POST', body, keepalive: true, headers: { 'content-type': 'text/plain' } }).catch(() => {})
  }

  const say = (text) => {
    const status = document.querySelector('.status')
    if (status) status.textContent = text
  }

  /** A photo as a file, for the apps that take pictures rather than links (Instagram, TikTok). */
  const photoFile = async (photo, name) => {
    const response = await fetch(photo.href, { mode: 'cors' })
    if (!response.ok) throw new Error(`photo answered ${response.status}`)
    return new File([await response.blob()], `${name}.jpg`, { type: 'image/jpeg' })
  }

  const canShareFiles = () => {
    try {
      return Boolean(navigator.canShare && navigator.canShare({ files: [new File([''], 'photo.jpg', { type: 'image/jpeg' })] }))
    } catch {
      return false
    }
  }

  const setUpSharing = (sessionId, url) => {
    const title = document.title
    const buttons = document.querySelectorAll('[data-share]')
    const filesShareable = canShareFiles()
    // The first photo's file, fetched ahead: Safari lets a share follow a tap only promptly, not
    // after a download of several megabytes. A photo opened in the viewer is fetched on the tap.
    const first = document.querySelector('.photo-open')
    let firstFile
    if (filesShareable && first) firstFile = photoFile(first, title).catch(() => undefined)
    for (const button of buttons) {
      const channel = button.dataset.share
      if (channel === 'native') button.hidden = !navigator.share
      if (channel === 'copy') button.hidden = !(navigator.clipboard && navigator.clipboard.writeText)
      if (channel === 'instagram' || channel === 'tiktok') button.hidden = !filesShareable
      button.addEventListener('click', async () => {
        track({ kind: 'share', sessionId, channel })
        try {
          if (channel === 'native') await navigator.share({ title, url })
          if (channel === 'copy') {
            await navigator.clipboard.writeText(url)
            say('Link copied')
          }
          if (channel === 'instagram' || channel === 'tiktok') {
            const opened = viewer.current()
            const file = opened && opened !== first ? await photoFile(opened, title) : await firstFile
            if (!file) throw new Error('the photo could not be fetched')
            await navigator.share({ files: [file], title })
          }
        } catch (error) {
          // The guest closing the share sheet is not a failure.
          if (error && error.name === 'AbortError') return
          if (channel === 'copy') say(`Copy this link: ${url}`)
          else if (navigator.share) navigator.share({ title, url }).catch(() => {})
        }
      })
    }
  }

  /** The full-size view in a <dialog>: Escape closes it, the arrow keys move through the photos. */
  const viewer = (() => {
    let index = -1
    let photos = []
    const dialog = () => document.querySelector('.viewer')
    const show = (next) => {
      index = (next + photos.length) % photos.length
      const link = photos[index]
      const image = dialog().querySelector('.viewer-image')
      image.src = link.href
      image.alt = link.querySelector('img').alt
      dialog().querySelector('.viewer-count').textContent = `${index + 1} / ${photos.length}`
      dialog().querySelector('[data-viewer="download"]').href = link.closest('.photo').querySelector('[download]').href
    }
    return {
      setUp() {
        const element = dialog()
        if (!element || !element.showModal) return
        photos = [...document.querySelectorAll('.photo-open')]
        for (const [i, link] of photos.entries()) {
          link.addEventListener('click', (event) => {
            event.preventDefault()
            show(i)
            element.showModal()
          })
        }
        element.addEventListener('close', () => {
          if (photos[index]) photos[index].focus()
          index = -1
        })
        element.addEventListener('keydown', (event) => {
          if (event.key === 'ArrowRight') show(index + 1)
          if (event.key === 'ArrowLeft') show(index - 1)
        })
        element.querySelector('[data-viewer="previous"]').addEventListener('click', () => show(index - 1))
        element.querySelector('[data-viewer="next"]').addEventListener('click', () => show(index + 1))
        element.querySelector('[data-viewer="close"]').addEventListener('click', () => element.close())
      },
      current: () => (index >= 0 ? photos[index] : undefined),
    }
  })()

  /**
   * Asks for this page again every few seconds (less often after a while, never while hidden) and,
   * once the photos are in or the session is gone, shows the new page in place: no reload.
   */
  const waitForPhotos = () => {
    const started = Date.now()
    const check = async () => {
      if (document.hidden) return document.addEventListener('visibilitychange', check, { once: true })
      try {
        const response = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' })
        const next = new DOMParser().parseFromString(await response.text(), 'text/html')
        if (next.body && next.body.dataset.page && next.body.dataset.page !== 'waiting') {
          document.title = next.title
          document.body.replaceWith(document.adoptNode(next.body))
          return start()
        }
      } catch {
        // Offline for a moment (a venue's network): the next check will do.
      }
      setTimeout(check, Date.now() - started < 5 * 60_000 ? 3_000 : 15_000)
    }
    setTimeout(check, 3_000)
  }

  const start = () => {
    const { page, sessionId, eventId, shareUrl } = document.body.dataset
    if (page === 'gallery') {
      track({ kind: 'view', sessionId })
      setUpSharing(sessionId, shareUrl)
      viewer.setUp()
    }
    if (page === 'event') track({ kind: 'view', eventId })
    if (page === 'waiting') waitForPhotos()
  }

  start()
})()
