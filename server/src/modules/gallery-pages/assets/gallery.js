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

  /**
   * A photo as a file, made once per URL. `asJpeg`: its large display copy (WebP) drawn into a JPEG,
   * which every app takes (Instagram, TikTok); otherwise the file as it is (the full-size JPEG, to
   * save). Started when a finger touches the button, so that it is ready by the tap: Safari lets a
   * share follow a tap only promptly, and nothing is downloaded for a guest who never shares.
   */
  const files = new Map()
  const fileOf = (link, name, asJpeg) => {
    const url = asJpeg ? link.dataset.large || link.href : link.href
    if (!files.has(url)) {
      const made = (async () => {
        const response = await fetch(url, { mode: 'cors' })
        if (!response.ok) throw new Error(`photo answered ${response.status}`)
        const blob = await response.blob()
        if (!asJpeg || blob.type === 'image/jpeg') return new File([blob], `${name}.jpg`, { type: 'image/jpeg' })
        const bitmap = await createImageBitmap(blob)
        const canvas = document.createElement('canvas')
        canvas.width = bitmap.width
        canvas.height = bitmap.height
        canvas.getContext('2d').drawImage(bitmap, 0, 0)
        const jpeg = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92))
        return new File([jpeg], `${name}.jpg`, { type: 'image/jpeg' })
      })()
      // A failed fetch is tried again at the next touch.
      made.catch(() => files.delete(url))
      files.set(url, made)
    }
    return files.get(url).catch(() => undefined)
  }

  const canShareFiles = () => {
    try {
      return Boolean(navigator.canShare && navigator.canShare({ files: [new File([''], 'photo.jpg', { type: 'image/jpeg' })] }))
    } catch {
      return false
    }
  }

  /**
   * Hands `data` to the share sheet. A browser that refuses because the file took too long after the
   * tap (NotAllowedError: the tap's permission has passed) gets it at the next tap, the file ready.
   */
  const share = async (data) => {
    try {
      await navigator.share(data)
    } catch (error) {
      // Closed by the guest (AbortError), or refused: nothing more to do but say how to go on.
      if (error && error.name === 'NotAllowedError') say('Ready: tap once more to share.')
    }
  }

  /**
   * Shares through the Web Share API and counts it: the photo as a file where the browser can share
   * files and the photo could be fetched (a CDN must allow it: CORS), else the link, counted as
   * `native` since the guest then picks the app in the share sheet.
   */
  const shareCounted = (sessionId, channel, url, file) => {
    const title = document.title
    track({ kind: 'share', sessionId, channel: file ? channel : 'native' })
    return share(file ? { files: [file], title } : { title, url })
  }

  const setUpSharing = (sessionId, url) => {
    const filesShareable = canShareFiles()
    const first = document.querySelector('.photo-open')
    const firstFile = () => (filesShareable && first ? fileOf(first, document.title, true) : Promise.resolve(undefined))
    for (const button of document.querySelectorAll('[data-share]')) {
      const channel = button.dataset.share
      if (channel === 'native') button.hidden = !navigator.share
      if (channel === 'copy') button.hidden = !(navigator.clipboard && navigator.clipboard.writeText)
      if (channel === 'instagram' || channel === 'tiktok') {
        button.hidden = !filesShareable
        button.addEventListener('pointerdown', firstFile)
      }
      button.addEventListener('click', async () => {
        if (channel === 'native') return shareCounted(sessionId, channel, url)
        if (channel === 'instagram' || channel === 'tiktok') return shareCounted(sessionId, channel, url, await firstFile())
        track({ kind: 'share', sessionId, channel })
        if (channel !== 'copy') return
        try {
          await navigator.clipboard.writeText(url)
          say('Link copied')
        } catch {
          say(`Copy this link: ${url}`)
        }
      })
    }
    const viewerShare = document.querySelector('[data-viewer="share"]')
    if (!viewerShare) return
    viewerShare.hidden = !navigator.share
    const openedFile = () => {
      const opened = viewer.current()
      return filesShareable && opened ? fileOf(opened, document.title, true) : Promise.resolve(undefined)
    }
    viewerShare.addEventListener('pointerdown', openedFile)
    viewerShare.addEventListener('click', async () => shareCounted(sessionId, 'native', url, await openedFile()))
    // "Save to Photos": the full-size photo as a file to the share sheet, where phones offer to save
    // it to the camera roll (a download lands in Files instead). Not a share of the gallery: not counted.
    const save = document.querySelector('[data-viewer="save"]')
    save.hidden = !filesShareable
    const fullFile = () => {
      const opened = viewer.current()
      return opened ? fileOf(opened, `${document.title} ${Number(opened.dataset.index) + 1}`, false) : Promise.resolve(undefined)
    }
    save.addEventListener('pointerdown', fullFile)
    save.addEventListener('click', async () => {
      const file = await fullFile()
      if (!file) return say('The photo could not be fetched: use Download instead.')
      await share({ files: [file] })
    })
  }

  /** The full-size view in a <dialog>: Escape closes it, the arrow keys move through the photos. */
  const viewer = (() => {
    let index = -1
    let photos = []
    const dialog = () => document.querySelector('.viewer')
    /** The next photo's large copy, fetched while this one is looked at: a swipe shows it at once. */
    const preload = new Image()
    const show = (next) => {
      index = (next + photos.length) % photos.length
      const link = photos[index]
      const image = dialog().querySelector('.viewer-image')
      image.src = link.dataset.large || link.href
      if (photos.length > 1) preload.src = photos[(index + 1) % photos.length].dataset.large || ''
      image.alt = link.querySelector('img').alt
      dialog().querySelector('.viewer-count').textContent = `Photo ${index + 1} of ${photos.length}`
      const download = dialog().querySelector('[data-viewer="download"]')
      download.href = link.closest('.photo').querySelector('[download]').href
      download.setAttribute('aria-label', `Download photo ${index + 1} of ${photos.length}`)
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
        // A swipe on a touch screen: left for the next photo, right for the previous one.
        let touch
        const image = element.querySelector('.viewer-image')
        image.addEventListener('touchstart', (event) => (touch = event.touches.length === 1 ? event.touches[0] : undefined), { passive: true })
        image.addEventListener('touchend', (event) => {
          const end = event.changedTouches[0]
          if (!touch || !end) return
          const dx = end.clientX - touch.clientX
          const dy = end.clientY - touch.clientY
          touch = undefined
          if (Math.abs(dx) > 40 && Math.abs(dx) > 2 * Math.abs(dy)) show(dx < 0 ? index + 1 : index - 1)
        })
        element.querySelector('[data-viewer="previous"]').addEventListener('click', () => show(index - 1))
        element.querySelector('[data-viewer="next"]').addEventListener('click', () => show(index + 1))
        element.querySelector('[data-viewer="close"]').addEventListener('click', () => element.close())
      },
      current: () => (index >= 0 ? photos[index] : undefined),
    }
  })()

  /**
   * Asks for this page again every few seconds (less often after five minutes, never while hidden,
   * not at all after two hours) and, once the photos are in or the session is gone, shows the new
   * page in place: no reload.
   */
  const waitForPhotos = () => {
    const started = Date.now()
    const check = async () => {
      if (document.hidden) return document.addEventListener('visibilitychange', check, { once: true })
      try {
        const response = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' })
        const next = new DOMParser().parseFromString(await response.text(), 'text/html')
        const main = next.querySelector('main')
        if (next.body && main && next.body.dataset.page && next.body.dataset.page !== 'waiting') {
          document.title = next.title
          Object.assign(document.body.dataset, next.body.dataset)
          document.querySelector('main').replaceWith(document.adoptNode(main))
          // Where a screen reader goes next: the new page's heading, read out.
          const heading = document.querySelector('h1')
          heading.tabIndex = -1
          heading.focus()
          return start()
        }
      } catch {
        // Offline for a moment (a venue's network): the next check will do.
      }
      const waited = Date.now() - started
      // A session left open at the booth: after two hours, a reload is the guest's to make.
      if (waited < 2 * 60 * 60_000) setTimeout(check, waited < 5 * 60_000 ? 3_000 : 15_000)
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
