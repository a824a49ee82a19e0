import { escapeHtml as e } from '../../html.js'
import type { EventPage, Gallery } from '../gallery/gallery.service.js'

/** Where the page's files are (content-hashed names) and the absolute addresses it names. */
export type PageLinks = {
  stylesheet: string
  script: string
  /** The absolute URL of a session's page: what is shared and previewed. */
  sessionPage: (sessionId: string) => string
  /** The absolute URL of an event's page. */
  eventPage: (slug: string) => string
}

type PagePhoto = Gallery['photos'][number]
type Image = { url: string; width: number; height: number; type: string }

/** Images of the first row load at once, first in line; the rest when scrolled to. */
const FIRST_ROW = 2

/**
 * How wide a gallery photo is shown, for `srcset` (gallery.css: two columns on a phone, cells of at
 * least 15rem beyond 40rem, in a page of at most 72rem with 1rem or 1.5rem margins). On a phone the
 * width is given as 0.6 of the cell's: a 3× screen then takes the copy a 2× screen would (the 480 px
 * copy for a 173 px cell: 2.8 pixels per CSS pixel across a landscape photo, 1.85 across a portrait
 * one), a third of the bytes of the next copy, and a gallery's first screen stays under 600 KB on a
 * phone's connection, portraits included (bench/README.md, `phone`).
 */
const GALLERY_SIZES = '(max-width: 40rem) calc((50vw - 1.4rem) * 0.6), (max-width: 72rem) calc(33vw - 2rem), 17rem'

/** `src`, `srcset` and `sizes` of a photo: its display copies where made, else the full-size photo. */
function imageSource(photo: PagePhoto, sizes: string): string {
  const copies = photo.copies ?? []
  if (copies.length === 0) return ` src="${e(photo.url)}"`
  const fallback = copies[Math.min(1, copies.length - 1)]!
  const srcset = copies.map((copy) => `${copy.url} ${copy.width}w`).join(', ')
  return ` src="${e(fallback.url)}" srcset="${e(srcset)}" sizes="${sizes}"`
}

/** The first row first, at high priority; the rest lazily. */
const loading = (index: number) => (index < FIRST_ROW ? ' fetchpriority="high"' : ' loading="lazy"')

/** The viewer's image: the largest display copy, else the full-size photo. */
const largeUrl = (photo: PagePhoto) => photo.copies?.at(-1)?.url ?? photo.url

export function galleryPage({ gallery, photoBytes }: { gallery: Gallery; photoBytes: number }, links: PageLinks): string {
  const { id, label, event, photos } = gallery
  const url = links.sessionPage(id)
  const count = photoCount(photos.length)
  const facebook = `https://www.facebook.com/sharer/sharer.php?u=${encodeURIComponent(url)}`
  const items = photos
    .map((photo, index) => {
      const n = index + 1
      const name = `Photo ${n} of ${photos.length}`
      return `<li class="photo" id="photo-${n}">
<a class="photo-open" href="${e(photo.url)}" data-large="${e(largeUrl(photo))}" data-index="${index}" aria-label="${name}, full size"><img${imageSource(photo, GALLERY_SIZES)} width="${photo.width}" height="${photo.height}" alt="${e(`${name}, ${label} at ${event.name}`)}"${loading(index)} decoding="async"></a>
<a class="button" href="/gallery/${e(id)}/photos/${e(photo.id)}/download" download aria-label="Download photo ${n} of ${photos.length}">Download</a>
</li>`
    })
    .join('\n')
  return layout({
    title: `${label} · ${event.name}`,
    description: `${count} from the photo booth at ${event.name}`,
    url,
    image: previewImage(gallery),
    links,
    body: { page: 'gallery', 'session-id': id, 'share-url': url },
    main: `<header class="top">
<p class="eyebrow">${e(event.name)}</p>
<h1>${e(label)}</h1>
<p class="meta">${count}</p>
</header>
<div class="actions">
<a class="button primary" href="/gallery/${e(id)}/zip" download data-zip>Download all (${count}, ${megabytes(photoBytes)})</a>
</div>
<section class="share" aria-labelledby="share-title">
<h2 id="share-title">Share</h2>
<div class="share-buttons">
<button type="button" class="button" data-share="native" hidden>Share…</button>
<button type="button" class="button" data-share="copy" hidden>Copy link</button>
<a class="button" data-share="facebook" href="${e(facebook)}" target="_blank" rel="noopener">Facebook</a>
<button type="button" class="button" data-share="instagram" hidden>Instagram</button>
<button type="button" class="button" data-share="tiktok" hidden>TikTok</button>
</div>
<p class="status" role="status" aria-live="polite"></p>
</section>
<ol class="photos">
${items}
</ol>
<dialog class="viewer" aria-label="Photo viewer">
<div class="viewer-bar">
<button type="button" class="button" data-viewer="previous" aria-label="Previous photo">‹</button>
<p class="viewer-count" aria-live="polite"></p>
<button type="button" class="button" data-viewer="next" aria-label="Next photo">›</button>
<button type="button" class="button" data-viewer="save" hidden>Save to Photos</button>
<button type="button" class="button" data-viewer="share" hidden>Share</button>
<a class="button" data-viewer="download" href="#" download>Download</a>
<button type="button" class="button" data-viewer="close" aria-label="Close">✕</button>
</div>
<img class="viewer-image" src="data:," alt="">
</dialog>`,
  })
}

const WAITING = {
  shooting: 'The booth is still sending them. They will appear here as soon as they arrive: keep this page open.',
  preparing: 'They have arrived and are being made ready for your phone: a few seconds more. Keep this page open.',
}

/**
 * The link works from registration on: until the booth completes, and while the photos' copies are
 * made, the photos are on their way.
 */
export function waitingPage(
  { sessionId, eventName, stage }: { sessionId: string; eventName: string; stage: keyof typeof WAITING },
  links: PageLinks,
): string {
  return layout({
    title: `Your photos are on their way · ${eventName}`,
    description: `Photos from the photo booth at ${eventName}`,
    url: links.sessionPage(sessionId),
    links,
    // Without the script, the page asks again by itself.
    refreshWithoutScript: 10,
    body: { page: 'waiting', 'session-id': sessionId },
    main: `<div class="notice" role="status">
<p class="eyebrow">${e(eventName)}</p>
<h1>Your photos are on their way</h1>
<p>${WAITING[stage]}</p>
</div>`,
  })
}

const NOT_FOUND = {
  gallery: {
    title: 'Gallery not found',
    heading: 'We can’t find these photos',
    // An expired gallery leaves nothing behind to tell it from a wrong link: the page says both.
    text: 'This link does not lead to any photos. Galleries are kept for a limited time after the event, so these may have expired; otherwise, check that it is the whole link from your message, or ask the photo booth team at the event.',
  },
  // The link was right: the session was cancelled, or ended without photos.
  ended: {
    title: 'No photos',
    heading: 'There are no photos here',
    text: 'No photos were saved for this visit to the booth. If you expected some, ask the photo booth team at the event.',
  },
  event: {
    title: 'Event not found',
    heading: 'We can’t find this event',
    text: 'There is no public page for this event. A link to your own photos still works.',
  },
  // Not a missing page but one that could not be read: the database or storage is away (a 503), or a fault (a 500).
  unavailable: {
    title: 'Try again in a moment',
    heading: 'Your photos are safe, but we can’t show them right now',
    text: 'Something on our side is not answering. Try again in a moment: this link will keep working.',
  },
}

export function noticePage(links: PageLinks, what: keyof typeof NOT_FOUND): string {
  const { title, heading, text } = NOT_FOUND[what]
  return layout({
    title,
    links,
    body: { page: 'missing' },
    main: `<div class="notice">
<h1>${heading}</h1>
<p>${text}</p>
</div>`,
  })
}

export function eventPage(page: EventPage, links: PageLinks): string {
  const sessions = page.sets.flatMap((set) => set.sessions)
  let shown = 0
  const sets = page.sets
    .filter((set) => set.sessions.length > 0)
    .map((set) => {
      const cards = set.sessions
        .map((session) => {
          const first = session.photos[0]!
          // Square cards: the smallest copy covers them. The link's name is its visible text (WCAG 2.5.3).
          const card = first.copies?.[0] ?? first
          return `<li class="card"><a href="${e(links.sessionPage(session.id))}"><img src="${e(card.url)}" width="${card.width}" height="${card.height}" alt=""${loading(shown++)} decoding="async"><span class="card-label">${e(session.label)}</span> <span class="card-meta">${photoCount(session.photos.length)}</span></a></li>`
        })
        .join('\n')
      return `<section class="set" aria-labelledby="set-${e(set.id)}">
<h2 id="set-${e(set.id)}">${e(set.name)}</h2>
<ul class="cards">
${cards}
</ul>
</section>`
    })
    .join('\n')
  return layout({
    title: page.name,
    description: `Photos from the photo booth at ${page.name}`,
    url: links.eventPage(page.slug),
    image: sessions[0] && previewImage(sessions[0]),
    links,
    body: { page: 'event', 'event-id': page.id },
    main: `<header class="top">
<h1>${e(page.name)}</h1>
<p class="meta">${sessions.length === 0 ? 'No photos yet' : `The latest ${sessions.length === 1 ? 'gallery' : 'galleries'}`}</p>
</header>
${sessions.length === 0 ? '<p class="notice">No photos yet: check back soon.</p>' : sets}`,
  })
}

type Layout = {
  title: string
  description?: string
  /** The page's own absolute URL, for link previews. */
  url?: string
  image?: Image
  links: PageLinks
  refreshWithoutScript?: number
  /** `data-*` attributes of the body: what the script needs to know. */
  body: Record<string, string>
  main: string
}

function layout({ title, description, url, image, links, refreshWithoutScript, body, main }: Layout): string {
  const meta = [
    description && `<meta name="description" content="${e(description)}">`,
    // Guests' names and faces: out of search engines, an event's public page included.
    '<meta name="robots" content="noindex">',
    `<meta property="og:title" content="${e(title)}">`,
    description && `<meta property="og:description" content="${e(description)}">`,
    url && `<meta property="og:url" content="${e(url)}">`,
    '<meta property="og:type" content="website">',
    image &&
      `<meta property="og:image" content="${e(image.url)}">
<meta property="og:image:type" content="${image.type}">
<meta property="og:image:width" content="${image.width}">
<meta property="og:image:height" content="${image.height}">
<meta name="twitter:image" content="${e(image.url)}">`,
    `<meta name="twitter:card" content="${image ? 'summary_large_image' : 'summary'}">`,
    `<meta name="twitter:title" content="${e(title)}">`,
    description && `<meta name="twitter:description" content="${e(description)}">`,
    refreshWithoutScript && `<noscript><meta http-equiv="refresh" content="${refreshWithoutScript}"></noscript>`,
  ]
    .filter(Boolean)
    .join('\n')
  const data = Object.entries(body)
    .map(([name, value]) => ` data-${name}="${e(value)}"`)
    .join('')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
${meta}
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${links.stylesheet}">
<script src="${links.script}" defer></script>
</head>
<body${data}>
<main>
${main}
</main>
</body>
</html>
`
}

/**
 * A link preview: the 1200×630 JPEG made for it, else (not made yet, or the first photo could not be
 * decoded) the first photo's largest display copy, else the first photo itself.
 */
function previewImage({ photos, preview }: { photos: PagePhoto[]; preview?: Image }): Image | undefined {
  if (preview) return preview
  const first = photos[0]
  if (!first) return undefined
  return first.copies?.at(-1) ?? { url: first.url, width: first.width, height: first.height, type: 'image/jpeg' }
}

const photoCount = (n: number) => `${n} ${n === 1 ? 'photo' : 'photos'}`

/** What "Download all" weighs, as a phone's owner reads it (SI units, as the phones show them). */
export function megabytes(bytes: number): string {
  // Below 999.5 KB: from there on, rounding to whole kilobytes would show "1000 KB".
  if (bytes < 999_500) return `${Math.max(1, Math.round(bytes / 1000))} KB`
  if (bytes < 999_950_000) return `${(bytes / 1_000_000).toFixed(1)} MB`
  return `${(bytes / 1_000_000_000).toFixed(1)} GB`
}
