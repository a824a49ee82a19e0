import { escapeHtml as e } from '../../html.js'
import type { EventPage, Gallery } from '../gallery/index.js'
import { accentColours } from './accent-colours.js'
import { ICONS } from './icons.js'
import { justifiedRows, phoneRows, sizesOf, tileStyle, WIDE_ROWS, type Place, type RowPlan } from './justified-rows.js'

/** Where the page's files are (content-hashed names) and the absolute addresses it names. */
export type PageLinks = {
  stylesheet: string
  script: string
  /** The absolute URL of the link preview shown until a gallery's own is made (a 1200×630 JPEG). */
  card: string
  /** The absolute URL of a session's page: what is shared and previewed. */
  sessionPage: (sessionId: string) => string
  /** The absolute URL of an event's page, or of one of its sets' next page of galleries. */
  eventPage: (slug: string, cursor?: string) => string
}

/** An event's branding (the contract's `EventBranding`): every field optional. */
export type Branding = {
  businessName?: string
  businessUrl?: string
  accentColor?: string
  tagline?: string
  logo?: { url: string; width: number; height: number }
}

type PagePhoto = Gallery['photos'][number]
type Image = { url: string; width: number; height: number; type: string }
/** Where a photo's copies stand, as the page shows it: made, on their way (asked again), or never (a photo that could not be decoded). */
export type PhotoState = 'shown' | 'coming' | 'unavailable'

/** The first row's images load first, at high priority; those further down when scrolled near. */
const EAGER_ROWS = 3

/**
 * A set's cards: at the size ten or more photos have whatever their number (a list of galleries,
 * not one to look at), none narrower than a short caption, the last row ending where it ends. A
 * portrait cover is cropped square (`cardFrame`): uncropped, a row holding one would be as tall as
 * the portrait and its landscape covers twice as wide, a copy twice the bytes each at 3×.
 */
const CARD_PHONE_ROWS: RowPlan = { ...phoneRows(10), target: 150, steep: 171, narrowest: 80, openLast: true }
const cardFrame = ({ width, height }: Frame): Frame => (width < height ? { width, height: width } : { width, height })
const CARD_WIDE_ROWS: RowPlan = { ...WIDE_ROWS, target: 260, openLast: true }

/** A tile's box: the photo's own shape in a gallery; on the event page, a portrait photo's card is square (cropped). */
type Frame = { width: number; height: number }
type Tile = { photo: PagePhoto; frame: Frame; state: PhotoState; phone: Place; wide: Place; row: number }

/** The photos laid out in rows for both screen classes, with each one's phone row number. */
function tilesOf(photos: { photo: PagePhoto; frame: Frame; state: PhotoState }[], plans: { phone: RowPlan; wide: RowPlan }): Tile[] {
  const aspects = photos.map(({ frame }) => frame.width / frame.height)
  const phone = justifiedRows(aspects, plans.phone)
  const wide = justifiedRows(aspects, plans.wide)
  let row = 0
  let left = 0
  return photos.map((photo, i) => {
    if (left === 0) left = phone[i]!.count
    const tile = { ...photo, phone: phone[i]!, wide: wide[i]!, row }
    if (--left === 0) row++
    return tile
  })
}

/** `src`, `srcset`, `sizes` and loading of a photo's display copies: never its full-size photo. */
function imageAttributes(tile: Tile, copies: NonNullable<PagePhoto['copies']>): string {
  const fallback = copies[Math.min(1, copies.length - 1)]!
  const srcset = copies.map((copy) => `${copy.url} ${copy.width}w`).join(', ')
  const loading = tile.row === 0 ? ' fetchpriority="high"' : tile.row < EAGER_ROWS ? '' : ' loading="lazy"'
  return ` src="${e(fallback.url)}" srcset="${e(srcset)}" sizes="${sizesOf(tile.phone, tile.wide)}"${loading} decoding="async"`
}

/**
 * A photo's tile: its display copy, or a placeholder of its shape (the script swaps the copy in
 * once made: `data-coming`, with the `sizes` and description it will need).
 */
function photoTile(tile: Tile, index: number, count: number, { id, label, eventName }: { id: string; label: string; eventName: string }) {
  const { photo, state } = tile
  const n = index + 1
  const alt = `Photo ${n} of ${count}, ${label} at ${eventName}`
  const download = `/gallery/${e(id)}/photos/${e(photo.id)}/download`
  const style = tileStyle(tile.frame, tile.phone, tile.wide)
  const large = photo.copies?.at(-1)?.url
  if (state === 'shown' && photo.copies && large) {
    return `<li class="tile" style="${style}"><a class="photo-open" href="${e(large)}" data-index="${index}" data-large="${e(large)}" data-download="${download}"><img${imageAttributes(tile, photo.copies)} width="${photo.width}" height="${photo.height}" alt="${e(alt)}"></a></li>`
  }
  const waiting = state === 'coming'
  const name = `${alt} (${waiting ? 'on its way' : 'shown once downloaded'})`
  const coming = waiting ? ` data-coming="${e(photo.id)}" data-sizes="${sizesOf(tile.phone, tile.wide)}" data-alt="${e(alt)}"` : ''
  return `<li class="tile"${coming} style="${style}"><a class="photo-open" href="${download}" data-index="${index}" data-download="${download}"><span class="placeholder${waiting ? ' waiting' : ''}" role="img" aria-label="${e(name)}">${waiting ? '' : ICONS.photo}</span></a></li>`
}

export type GalleryPageInput = { gallery: Gallery; photoBytes: number; states: ReadonlyMap<string, PhotoState> }

export function galleryPage({ gallery, photoBytes, states }: GalleryPageInput, links: PageLinks): string {
  const { id, label, event, photos } = gallery
  const url = links.sessionPage(id)
  const count = photoCount(photos.length)
  const facebook = `https://www.facebook.com/sharer/sharer.php?u=${encodeURIComponent(url)}`
  const tiles = tilesOf(
    photos.map((photo) => ({ photo, frame: photo, state: photo.copies ? 'shown' : (states.get(photo.id) ?? 'coming') })),
    { phone: phoneRows(photos.length), wide: WIDE_ROWS },
  )
  const items = tiles.map((tile, index) => photoTile(tile, index, photos.length, { id, label, eventName: event.name })).join('\n')
  return layout({
    title: `${label} · ${event.name}`,
    description: `${count} from the photo booth at ${event.name}`,
    url,
    image: previewImage(gallery.preview, links),
    links,
    branding: event.branding,
    body: { page: 'gallery', 'session-id': id, 'share-url': url, label },
    main: `<div class="intro">
<div class="heading">
<p class="eyebrow">${e(event.name)}</p>
<h1>${e(label)}</h1>
<p class="meta">${count}</p>
</div>
<div class="actions">
<button type="button" class="round" data-share="link" data-needs="script" aria-label="Share this gallery">${ICONS.share}<span class="label">Share</span></button>
<a class="round" data-share="facebook" href="${e(facebook)}" target="_blank" rel="noopener" aria-label="Share on Facebook">${ICONS.facebook}<span class="label">Facebook</span></a>
<a class="round primary" href="/gallery/${e(id)}/zip" download data-zip aria-label="Download all ${count} (${megabytes(photoBytes)}, zip)">${ICONS.download}<span class="label">Download all</span></a>
</div>
</div>
<ol class="grid photos">
${items}
</ol>
<p class="toast" role="status" aria-live="polite"></p>
${VIEWER}`,
  })
}

/** The full-screen viewer, laid out as a phone's photo app: the position and close on top, the actions on one row below. */
const VIEWER = `<dialog class="viewer" aria-label="Photo viewer">
<div class="viewer-top">
<p class="viewer-count" aria-live="polite"></p>
<button type="button" class="viewer-button" data-viewer="close" aria-label="Close">${ICONS.close}</button>
</div>
<div class="viewer-stage">
<img class="viewer-image" alt="">
<p class="viewer-note" hidden></p>
</div>
<p class="viewer-toast" role="status" aria-live="polite"></p>
<div class="viewer-bar">
<button type="button" class="viewer-button" data-viewer="previous" aria-label="Previous photo">${ICONS.previous}</button>
<button type="button" class="viewer-button labelled" data-viewer="save" data-needs="files">${ICONS.save}<span>Save</span></button>
<button type="button" class="viewer-button labelled" data-viewer="share" data-needs="share">${ICONS.share}<span>Share</span></button>
<a class="viewer-button labelled" data-viewer="download" href="#" download>${ICONS.download}<span>Download</span></a>
<button type="button" class="viewer-button" data-viewer="next" aria-label="Next photo">${ICONS.next}</button>
</div>
</dialog>`

const WAITING_TEXT = 'The booth is still sending them. They will appear here as soon as they arrive: keep this page open.'

/** The link works from registration on: until the booth completes, the photos are on their way. */
export function waitingPage(
  { sessionId, eventName, branding }: { sessionId: string; eventName: string; branding?: Branding },
  links: PageLinks,
): string {
  return layout({
    title: `Your photos are on their way · ${eventName}`,
    description: `Photos from the photo booth at ${eventName}`,
    url: links.sessionPage(sessionId),
    image: previewImage(undefined, links),
    links,
    branding,
    // Without the script, the page asks again by itself.
    refreshWithoutScript: 10,
    body: { page: 'waiting', 'session-id': sessionId },
    main: `<div class="notice" role="status">
<span class="notice-mark waiting" aria-hidden="true"></span>
<p class="eyebrow">${e(eventName)}</p>
<h1>Your photos are on their way</h1>
<p>${WAITING_TEXT}</p>
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

type EventSession = EventPage['sets'][number]['sessions'][number]

/** A gallery's card: its first photo (a copy, else a placeholder the script fills), its label and size, linking to its page. */
function card(tile: Tile, session: EventSession, links: PageLinks): string {
  const { photo, state } = tile
  const copies = photo.copies
  const picture =
    state === 'shown' && copies
      ? `<img${imageAttributes(tile, copies)} width="${photo.width}" height="${photo.height}" alt="">`
      : `<span class="placeholder${state === 'coming' ? ' waiting' : ''}">${state === 'coming' ? '' : ICONS.photo}</span>`
  const coming = state === 'coming' ? ` data-coming="${e(session.id)}" data-sizes="${sizesOf(tile.phone, tile.wide)}"` : ''
  // The link's name is its visible text (WCAG 2.5.3): no aria-label to contradict it.
  return `<li class="tile card"${coming} style="${tileStyle(tile.frame, tile.phone, tile.wide)}"><a href="${e(links.sessionPage(session.id))}"><span class="frame">${picture}</span><span class="card-label">${e(session.label)}</span> <span class="card-meta">${photoCount(session.photos.length)}</span></a></li>`
}

/**
 * An event's page: each set's latest galleries as cards in justified rows, and, where the set holds
 * more, a link to its next page (the script appends it in place). With `cursor`, that next page:
 * the one set, its next galleries.
 */
export function eventPage(
  page: EventPage,
  links: PageLinks,
  { cursor, states }: { cursor?: string; states: ReadonlyMap<string, PhotoState> },
): string {
  const sessions = page.sets.flatMap((set) => set.sessions)
  const sets = page.sets
    .filter((set) => set.sessions.length > 0)
    .map((set) => {
      const tiles = tilesOf(
        set.sessions.map((session) => {
          const first = session.photos[0]!
          return { photo: first, frame: cardFrame(first), state: first.copies ? ('shown' as const) : (states.get(first.id) ?? 'coming') }
        }),
        { phone: CARD_PHONE_ROWS, wide: CARD_WIDE_ROWS },
      )
      const cards = tiles.map((tile, i) => card(tile, set.sessions[i]!, links)).join('\n')
      const more = set.nextCursor
        ? `\n<a class="more" href="${e(links.eventPage(page.slug, set.nextCursor))}" data-more="${e(set.id)}">More from ${e(set.name)}</a>`
        : ''
      return `<section class="set" data-set="${e(set.id)}" aria-labelledby="set-${e(set.id)}">
<h2 id="set-${e(set.id)}">${e(set.name)}</h2>
<ul class="grid cards">
${cards}
</ul>${more}
</section>`
    })
    .join('\n')
  const tagline = page.branding?.tagline
  return layout({
    title: cursor ? `${page.sets[0]?.name ?? 'More'} · ${page.name}` : page.name,
    description: `Photos from the photo booth at ${page.name}`,
    url: links.eventPage(page.slug, cursor),
    image: previewImage(sessions[0]?.preview, links),
    links,
    branding: page.branding,
    body: { page: 'event', 'event-id': page.id, slug: page.slug },
    main: `<div class="intro">
<div class="heading">
${cursor ? `<p class="eyebrow"><a href="${e(links.eventPage(page.slug))}">${e(page.name)}</a></p>\n<h1>More galleries</h1>` : `<h1>${e(page.name)}</h1>`}
${tagline && !cursor ? `<p class="tagline">${e(tagline)}</p>\n` : ''}<p class="meta">${sessions.length === 0 ? 'No photos yet' : cursor ? 'Earlier galleries' : 'The latest galleries'}</p>
</div>
</div>
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
  branding?: Branding
  refreshWithoutScript?: number
  /** `data-*` attributes of the body: what the script needs to know. */
  body: Record<string, string>
  main: string
}

function layout({ title, description, url, image, links, branding, refreshWithoutScript, body, main }: Layout): string {
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
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<title>${e(title)}</title>
${meta}
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${links.stylesheet}">
<script src="${links.script}"></script>
</head>
<body${data}${accentStyle(branding)}>
${masthead(branding)}<main>
${main}
</main>
${footer(branding, { lineShown: body.page === 'event' })}</body>
</html>
`
}

/**
 * The business's colours as the stylesheet's custom properties (an inline style: helmet's policy
 * allows inline styles, not scripts). Before any paint, so nothing changes colour or moves.
 */
function accentStyle(branding: Branding | undefined): string {
  if (!branding?.accentColor) return ''
  const colours = accentColours(branding.accentColor)
  return ` style="--accent:${colours.accent};--on-accent:${colours.onAccent};--link-light:${colours.linkLight};--link-dark:${colours.linkDark}"`
}

/** The business's logo (or name) in a compact bar above the page, linking to its site. */
function masthead(branding: Branding | undefined): string {
  if (!branding?.logo && !branding?.businessName) return ''
  const { logo, businessName, businessUrl } = branding
  const mark = logo
    ? `<img class="brand-logo" src="${e(logo.url)}" width="${logo.width}" height="${logo.height}" alt="${e(businessName ?? 'Photo booth')}">`
    : `<span class="brand-name">${e(businessName!)}</span>`
  const inner = businessUrl ? `<a class="brand" href="${e(businessUrl)}" rel="noopener">${mark}</a>` : `<span class="brand">${mark}</span>`
  return `<header class="masthead">${inner}</header>\n`
}

/** The business's name, link and line at the foot of the page (the line once: not where the page's heading shows it). */
function footer(branding: Branding | undefined, { lineShown }: { lineShown: boolean }): string {
  const tagline = lineShown ? undefined : branding?.tagline
  if (!branding?.businessName && !tagline) return ''
  const { businessName, businessUrl } = branding!
  const name = businessName && (businessUrl ? `<a href="${e(businessUrl)}" rel="noopener">${e(businessName)}</a>` : e(businessName))
  return `<footer class="site-footer">
${name ? `<p class="footer-name">Photos by ${name}</p>\n` : ''}${tagline ? `<p class="footer-line">${e(tagline)}</p>\n` : ''}</footer>
`
}

/**
 * A link preview: the 1200×630 JPEG made from the gallery's first photo, else (not made yet, or the
 * photo could not be decoded) the service's own card: never a photo's full-size copy, which
 * messengers drop for its weight.
 */
function previewImage(preview: Image | undefined, links: PageLinks): Image {
  return preview ?? { url: links.card, width: 1200, height: 630, type: 'image/jpeg' }
}

const photoCount = (n: number) => `${n} ${n === 1 ? 'photo' : 'photos'}`

/** What "Download all" weighs, as a phone's owner reads it (SI units, as the phones show them). */
export function megabytes(bytes: number): string {
  // Below 999.5 KB: from there on, rounding to whole kilobytes would show "1000 KB".
  if (bytes < 999_500) return `${Math.max(1, Math.round(bytes / 1000))} KB`
  if (bytes < 999_950_000) return `${(bytes / 1_000_000).toFixed(1)} MB`
  return `${(bytes / 1_000_000_000).toFixed(1)} GB`
}
