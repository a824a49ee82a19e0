import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join, relative, sep } from 'node:path'
import { gzipSync } from 'node:zlib'

import { Router, type Request, type Response } from 'express'

import type { Services } from '../context.js'
import type { Logger } from '../logger.js'
import { pageSecurityPolicy } from './security-headers.js'

/** A web app of the workspace (apps/<name>), served from its built `dist` under `path`. */
export type StaticApp = {
  /** Where it is served: `/kiosk`. Every page under it that is no file is the app's `index.html`. */
  path: string
  /** Its package (`@photobooth/kiosk`), whose `dist` folder `pnpm build` fills. */
  package: string
  /**
   * What a page of the app will fetch first (its page path below `path` to a URL of the service), sent
   * as a `Link` preload with the page, so that the browser asks for it while the app's script loads.
   */
  preload?: (page: string) => string | undefined
}

type ServedFile = { type: string; body: Buffer; gzipped: Buffer | undefined; etag: string; immutable: boolean }

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.webmanifest', '.json', '.svg', '.txt'])

/** Vite names the files of `assets/` by their content: cached for good. Everything else is checked at every use. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'

/** The folder of a workspace package's build, found as Node finds the package (from sources and from the bundle alike). */
export function distOf(packageName: string): string {
  return join(dirname(createRequire(import.meta.url).resolve(`${packageName}/package.json`)), 'dist')
}

/**
 * The workspace's web apps (the kiosk; the staff console later), each served by the service from its
 * build: hashed assets immutable, `index.html` and the service worker revalidated at every load (a
 * new build reaches a tablet on its next start), the service's own Content-Security-Policy (no inline
 * script, nothing from another origin but the photo CDN's images). Files are read and gzipped once at
 * start; an app that is not built answers the JSON 404 of any unknown path, with a warning in the log.
 */
export function staticApps(services: Pick<Services, 'config' | 'logger'>, apps: readonly StaticApp[]): Router {
  const router = Router()
  const policy = pageSecurityPolicy(services.config.publicUrl, { imageOrigins: [new URL(services.config.cdnUrl).origin] })
  for (const app of apps) {
    const files = readBuild(distOf(app.package), app, services.logger)
    const index = files.get('/index.html')
    if (!index) continue
    const shellLinks = preloadsOf(index.body.toString('utf8'))
    router.get(`${app.path}{/*rest}`, (req, res, next) => {
      const path = req.path.slice(app.path.length) || '/'
      const file = files.get(path)
      // A page of the app (`/kiosk/summer-gala/photo-wall`): its shell. A missing file is the service's 404.
      if (!file && extname(path) !== '') return next()
      if (!file) {
        const first = app.preload?.(path)
        res.setHeader('Link', [...shellLinks, ...(first ? [`<${first}>; rel=preload; as=fetch; crossorigin=anonymous`] : [])].join(', '))
      }
      send(req, res, file ?? index, policy)
    })
  }
  return router
}

/**
 * The shell's script and stylesheet as `Link` preloads of its answer: the browser asks for them as
 * soon as the headers arrive, a round trip sooner on a slow network than once the page is parsed.
 */
function preloadsOf(html: string): string[] {
  const scripts = [...html.matchAll(/<script type="module"[^>]*\bsrc="([^"]+)"/g)].map(
    ([, src]) => `<${src}>; rel=modulepreload; crossorigin`,
  )
  const styles = [...html.matchAll(/<link rel="stylesheet"[^>]*\bhref="([^"]+)"/g)].map(
    ([, href]) => `<${href}>; rel=preload; as=style; crossorigin`,
  )
  return [...scripts, ...styles]
}

function readBuild(dist: string, app: StaticApp, logger: Logger): Map<string, ServedFile> {
  const files = new Map<string, ServedFile>()
  if (!existsSync(join(dist, 'index.html'))) {
    logger.warn(`web app not built: ${app.package} (run pnpm build); ${app.path} answers 404`)
    return files
  }
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const full = join(entry.parentPath, entry.name)
    const path = `/${relative(dist, full).split(sep).join('/')}`
    const extension = extname(path)
    const type = TYPES[extension]
    if (!type) continue
    const body = readFileSync(full)
    files.set(path, {
      type,
      body,
      gzipped: COMPRESSIBLE.has(extension) ? gzipSync(body, { level: 9 }) : undefined,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      immutable: path.startsWith('/assets/'),
    })
  }
  return files
}

function send(req: Request, res: Response, file: ServedFile, policy: string): void {
  res.setHeader('Cache-Control', file.immutable ? IMMUTABLE : REVALIDATE)
  res.setHeader('ETag', file.etag)
  res.setHeader('Vary', 'Accept-Encoding')
  if (file.type.startsWith('text/html')) res.setHeader('Content-Security-Policy', policy)
  if (req.headers['if-none-match'] === file.etag) return void res.status(304).end()
  const gzip = file.gzipped !== undefined && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
  if (gzip) res.setHeader('Content-Encoding', 'gzip')
  res.type(file.type).send(gzip ? file.gzipped : file.body)
}
