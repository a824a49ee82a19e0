import type { RequestHandler } from 'express'

import { GALLERY_PAGES_PATH } from '../../config.js'

/**
 * `/robots.txt`: nothing this service serves is for search engines (guests' names and faces; the
 * pages say `noindex` too). The fetchers of link previews, which some messengers have honour this
 * file, may read the guests' pages and the images they name (the preview on the local bucket, the
 * logo), so that a shared link still shows its card.
 */
const ROBOTS = `# Guests' galleries are private links: nothing here is for search engines.
# Link previews are welcome: messengers may read the gallery pages and their preview images.
User-agent: facebookexternalhit
User-agent: Facebot
User-agent: Twitterbot
User-agent: LinkedInBot
User-agent: Slackbot-LinkExpanding
User-agent: WhatsApp
User-agent: TelegramBot
User-agent: Discordbot
Allow: ${GALLERY_PAGES_PATH}/
Allow: /photos/
Allow: /brand/
Disallow: /

User-agent: *
Disallow: /
`

export const robotsTxt: RequestHandler = (_req, res) =>
  void res.type('text/plain; charset=utf-8').setHeader('Cache-Control', 'public, max-age=86400').send(ROBOTS)
