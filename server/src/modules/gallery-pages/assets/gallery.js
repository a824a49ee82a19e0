// The guest's pages are whole without this script: it adds the view and share beacons, sharing,
// the viewer, the photos swapped in as their copies are made, the event page's next galleries, and
// the wait for photos that are on their way. It runs in <head>, before the first paint, only to say
// what this browser can do (classes on <html>: the stylesheet shows the controls that work, so none
// appears later and moves the page); the rest waits for the document.
;(() => {
  'use strict'

  const root = document.documentElement
  const canShare = typeof navigator.share === 'function'
  const canShareFiles = (() => {
    try {
      return Boolean(navigator.canShare && navigator.canShare({ files: [new File([''], 'photo.jpg', { type: 'image/jpeg' })] }))
    } catch {
      return false
    }
  })()
  root.classList.add('js')
  if (canShare) root.classList.add('can-share')
  if (canShareFiles) root.classList.add('can-share-files')

  /** POST /track takes text/plain so that a beacon needs no preflight (the spec's intent). */
  const track = (beacon) => {
    const body = JSON.stringify(beacon)
    if (navigator.sendBeacon && navigator.sendBeacon('/track', body)) return
    fetch('/track', { method: 'POST', body, keepalive: true, headers: { 'content-type': 'text/plain' } }).catch(() => {})
  }

  /** A status where the guest is looking: over the viewer when it is open, else over the page; gone after 5 s, unless replaced. */
  let said = 0
  const say = (text) => {
    const viewerOpen = document.querySelector('.viewer[open]')
    const toast = document.querySelector(viewerOpen ? '.viewer-toast' : '.toast')
    if (!toast) return
    for (const other of document.querySelectorAll('.toast, .viewer-toast')) if (other !== toast) other.textContent = ''
    toast.textContent = text
    const saying = ++said
    setTimeout(() => saying === said && (toast.textContent = ''), 5_000)
  }

  /**
   * Asks `url` (JSON) again, every second while copies are usually made (the first 15 s), then less
   * and less often, never while the page is hidden, not at all after ten minutes; with the browser's
   * validator, so that an answer that has not changed is a 304 of no body (one small query on the
   * service). `apply` returns whether anything is still awaited.
   */
  const pollJson = (url, apply) => {
    const started = Date.now()
    const delay = () => {
      const elapsed = Date.now() - started
      return elapsed < 15_000 ? 1_000 : elapsed < 60_000 ? 2_000 : 5_000
    }
    const check = async () => {
      if (document.hidden) return document.addEventListener('visibilitychange', check, { once: true })
      try {
        const response = await fetch(url, { cache: 'no-cache', headers: { accept: 'application/json' } })
        if (response.ok && !apply(await response.json())) return
      } catch {
        // Offline for a moment (a venue's network): the next check will do.
      }
      if (Date.now() - started < 10 * 60_000) setTimeout(check, delay())
    }
    setTimeout(check, delay())
  }

  /** A copy's `<img>` over its placeholder, shown once decoded: the tile's box does not change. */
  const swapIn = (tile, copies, { width, height, alt }) => {
    const img = new Image()
    img.className = 'arriving'
    img.decoding = 'async'
    img.width = width
    img.height = height
    img.alt = alt
    img.sizes = tile.dataset.sizes
    img.srcset = copies.map((copy) => `${copy.url} ${copy.width}w`).join(', ')
    img.src = copies[Math.min(1, copies.length - 1)].url
    const placeholder = tile.querySelector('.placeholder')
    img.addEventListener(
      'load',
      () => {
        img.classList.add('arrived')
        placeholder.remove()
        img.classList.remove('arriving')
      },
      { once: true },
    )
    placeholder.after(img)
    delete tile.dataset.coming
  }

  /** The gallery's photos whose copies were still being made: swapped in as they are made. */
  const awaitCopies = (sessionId) => {
    if (!document.querySelector('.photos [data-coming]')) return
    pollJson(`/gallery/${encodeURIComponent(sessionId)}`, (gallery) => {
      for (const photo of gallery.photos) {
        const tile = photo.copies && document.querySelector(`.photos [data-coming="${photo.id}"]`)
        if (!tile) continue
        const large = photo.copies[photo.copies.length - 1].url
        const link = tile.querySelector('a')
        link.href = large
        link.dataset.large = large
        swapIn(tile, photo.copies, { width: photo.width, height: photo.height, alt: tile.dataset.alt })
      }
      return Boolean(document.querySelector('.photos [data-coming]'))
    })
  }

  /** The event page's cards whose first photo's copies were being made. */
  const awaitCards = (slug) => {
    if (!document.querySelector('.cards [data-coming]')) return
    pollJson(`/gallery/events/${encodeURIComponent(slug)}`, (page) => {
      for (const session of page.sets.flatMap((set) => set.sessions)) {
        const first = session.photos[0]
        const tile = first.copies && document.querySelector(`.cards [data-coming="${session.id}"]`)
        if (tile) swapIn(tile, first.copies, { width: first.width, height: first.height, alt: '' })
      }
      return Boolean(document.querySelector('.cards [data-coming]'))
    })
  }

  /** The link to the gallery: the share sheet where the browser has one, else the clipboard. */
  const setUpSharing = (sessionId, url) => {
    const button = document.querySelector('[data-share="link"]')
    button.addEventListener('click', () => {
      if (canShare) {
        track({ kind: 'share', sessionId, channel: 'native' })
        navigator.share({ title: document.title, url }).catch(() => {})
        return
      }
      track({ kind: 'share', sessionId, channel: 'copy' })
      const copied = navigator.clipboard && navigator.clipboard.writeText ? navigator.clipboard.writeText(url) : Promise.reject(new Error())
      copied.then(
        () => say('Link copied'),
        () => say(`Copy this link: ${url}`),
      )
    })
    document
      .querySelector('[data-share="facebook"]')
      .addEventListener('click', () => track({ kind: 'share', sessionId, channel: 'facebook' }))
  }

  /**
   * A photo as a JPEG file, made when the viewer shows it (its large copy, already fetched for the
   * viewer, drawn into a JPEG every app takes), so that Save and Share hand it to the share sheet
   * in the tap's own task: Safari refuses a share that follows a tap by more.
   */
  const makeFile = async (url, name) => {
    const response = await fetch(url, { mode: 'cors' })
    if (!response.ok) throw new Error(`photo answered ${response.status}`)
    const bitmap = await createImageBitmap(await response.blob())
    const canvas = document.createElement('canvas')
    canvas.width = bitmap.width
    canvas.height = bitmap.height
    canvas.getContext('2d').drawImage(bitmap, 0, 0)
    const jpeg = await new Promise((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no JPEG'))), 'image/jpeg', 0.92),
    )
    return new File([jpeg], name, { type: 'image/jpeg' })
  }

  /** The viewer, in a <dialog>: Escape or a swipe down closes it, the arrow keys or a swipe sideways move through the photos. */
  const setUpViewer = (sessionId, url) => {
    const dialog = document.querySelector('.viewer')
    if (!dialog || !dialog.showModal) return
    const links = [...document.querySelectorAll('.photo-open')]
    const stage = dialog.querySelector('.viewer-stage')
    const image = dialog.querySelector('.viewer-image')
    const note = dialog.querySelector('.viewer-note')
    const count = dialog.querySelector('.viewer-count')
    const download = dialog.querySelector('[data-viewer="download"]')
    const save = dialog.querySelector('[data-viewer="save"]')
    const shareButton = dialog.querySelector('[data-viewer="share"]')
    const label = document.body.dataset.label
    const files = new Map()
    let index = -1
    /** A Save or Share tapped before its file was ready: done when it is, if the browser still allows it. */
    let waitingTap

    const fileReady = (i) => {
      const busy = canShareFiles && !files.has(i)
      for (const button of [save, shareButton]) button.setAttribute('aria-disabled', String(busy || !links[i].dataset.large))
    }
    const hand = (action, file) => {
      if (action === 'share') track({ kind: 'share', sessionId, channel: 'native' })
      const data = file ? (action === 'share' ? { files: [file], title: document.title } : { files: [file] }) : { title: document.title, url }
      navigator.share(data).catch((error) => {
        // The tap's permission had passed (the file came late): the next tap has the file at once.
        if (error && error.name === 'NotAllowedError') say(`Ready: tap ${action === 'save' ? 'Save' : 'Share'} again`)
      })
    }
    const prepare = (i) => {
      const large = links[i].dataset.large
      if (!canShareFiles || !large || files.has(i)) return
      files.set(i, undefined)
      makeFile(large, `${label} ${i + 1}.jpg`).then(
        (file) => {
          files.set(i, file)
          if (i !== index) return
          fileReady(i)
          if (waitingTap === undefined) return
          const action = waitingTap
          waitingTap = undefined
          if (navigator.userActivation && !navigator.userActivation.isActive) return say(`Ready: tap ${action === 'save' ? 'Save' : 'Share'} again`)
          hand(action, file)
        },
        () => {
          files.delete(i)
          if (i === index && waitingTap !== undefined) say('The photo could not be fetched: use Download instead.')
          waitingTap = undefined
        },
      )
    }
    const onTap = (action) => () => {
      if (!links[index].dataset.large) return say('Use Download for this photo.')
      if (!canShareFiles) return hand(action)
      const file = files.get(index)
      if (file) return hand(action, file)
      waitingTap = action
      say('Getting the photo ready…')
      prepare(index)
    }
    save.addEventListener('click', onTap('save'))
    shareButton.addEventListener('click', onTap('share'))

    /** The next photo's large copy, fetched while this one is looked at: a swipe shows it at once. */
    const ahead = new Image()
    const show = (next) => {
      index = (next + links.length) % links.length
      const shown = index
      const link = links[shown]
      const thumbnail = link.querySelector('img')
      const large = link.dataset.large
      count.textContent = `${shown + 1} of ${links.length}`
      download.href = link.dataset.download
      download.setAttribute('aria-label', `Download photo ${shown + 1} of ${links.length}`)
      waitingTap = undefined
      fileReady(shown)
      note.hidden = Boolean(large)
      note.textContent = large
        ? ''
        : link.closest('[data-coming]')
          ? 'This photo is still being prepared. Download gets it now.'
          : 'This photo cannot be shown here. Download gets it.'
      image.hidden = !large
      image.alt = thumbnail ? thumbnail.alt : ''
      if (!large) return stage.classList.remove('loading')
      // The grid's copy at once (already here), the large one once decoded.
      if (thumbnail && thumbnail.currentSrc) image.src = thumbnail.currentSrc
      stage.classList.add('loading')
      const full = new Image()
      full.src = large
      full.decode().then(
        () => {
          if (index !== shown) return
          image.src = large
          stage.classList.remove('loading')
          prepare(shown)
        },
        () => index === shown && stage.classList.remove('loading'),
      )
      const following = links[(shown + 1) % links.length].dataset.large
      if (links.length > 1 && following) ahead.src = following
    }
    for (const [i, link] of links.entries()) {
      link.addEventListener('click', (event) => {
        event.preventDefault()
        show(i)
        dialog.showModal()
      })
    }
    dialog.addEventListener('close', () => {
      stage.style.transform = ''
      dialog.style.background = ''
      if (links[index]) links[index].focus()
      index = -1
    })
    dialog.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowRight') show(index + 1)
      if (event.key === 'ArrowLeft') show(index - 1)
    })
    dialog.querySelector('[data-viewer="previous"]').addEventListener('click', () => show(index - 1))
    dialog.querySelector('[data-viewer="next"]').addEventListener('click', () => show(index + 1))
    dialog.querySelector('[data-viewer="close"]').addEventListener('click', () => dialog.close())

    // A finger: sideways for the next or previous photo; down, the photo following it, to close.
    let touch
    stage.addEventListener('touchstart', (event) => (touch = event.touches.length === 1 ? event.touches[0] : undefined), { passive: true })
    stage.addEventListener(
      'touchmove',
      (event) => {
        const now = event.touches[0]
        if (!touch || !now) return
        const dy = now.clientY - touch.clientY
        if (dy > 0 && dy > 2 * Math.abs(now.clientX - touch.clientX)) {
          stage.style.transform = `translateY(${dy}px)`
          dialog.style.background = `rgb(0 0 0 / ${Math.max(0.3, 1 - dy / 400)})`
        }
      },
      { passive: true },
    )
    stage.addEventListener('touchend', (event) => {
      const end = event.changedTouches[0]
      const start = touch
      touch = undefined
      stage.style.transform = ''
      dialog.style.background = ''
      if (!start || !end) return
      const dx = end.clientX - start.clientX
      const dy = end.clientY - start.clientY
      if (dy > 100 && dy > 2 * Math.abs(dx)) return dialog.close()
      if (Math.abs(dx) > 40 && Math.abs(dx) > 2 * Math.abs(dy)) show(dx < 0 ? index + 1 : index - 1)
    })
  }

  /** "More from …": the set's next page, fetched and its cards appended in place (without the script, the link opens it). */
  const setUpMore = () => {
    for (const more of document.querySelectorAll('[data-more]')) {
      more.addEventListener('click', async (event) => {
        event.preventDefault()
        if (more.getAttribute('aria-busy') === 'true') return
        more.setAttribute('aria-busy', 'true')
        try {
          const response = await fetch(more.href, { headers: { accept: 'text/html' } })
          if (!response.ok) throw new Error(`answered ${response.status}`)
          const next = new DOMParser().parseFromString(await response.text(), 'text/html')
          const section = next.querySelector(`[data-set="${more.dataset.more}"]`)
          const cards = section ? [...section.querySelectorAll('.cards > li')] : []
          const list = more.closest('.set').querySelector('.cards')
          for (const card of cards) list.append(document.adoptNode(card))
          const further = section && section.querySelector('[data-more]')
          if (further) more.href = further.href
          else more.remove()
          // Keyboard and screen reader users go on where the new galleries begin.
          if (cards[0]) cards[0].querySelector('a').focus()
          awaitCards(document.body.dataset.slug)
        } catch {
          say('Those galleries could not be loaded: try again in a moment.')
        } finally {
          more.removeAttribute('aria-busy')
        }
      })
    }
  }

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
    const { page, sessionId, eventId, shareUrl, slug } = document.body.dataset
    if (page === 'gallery') {
      track({ kind: 'view', sessionId })
      setUpSharing(sessionId, shareUrl)
      setUpViewer(sessionId, shareUrl)
      awaitCopies(sessionId)
    }
    if (page === 'event') {
      track({ kind: 'view', eventId })
      setUpMore()
      awaitCards(slug)
    }
    if (page === 'waiting') waitForPhotos()
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true })
  else start()
})()
