import { createRequire } from 'node:module'
import { dirname } from 'node:path'

import { Router } from 'express'

import type { Services } from '../../context.js'
import { pageSecurityPolicy } from '../../http/security-headers.js'

/**
 * `GET /docs`: an interactive reference of the served document (`/openapi.json`), Swagger UI served
 * from our own dependency (swagger-ui-dist) and this folder, so that it works offline and under
 * helmet's Content-Security-Policy as it is (`script-src 'self'`: no inline script, no CDN).
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

/** Served as a file, not inline, so that the page passes helmet's `script-src 'self'`. */
const INIT_SCRIPT = `window.ui = window.SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  // The filter box: a reader finds a tag among some sixty operations by typing part of its name.
  filter: true,
  // The public validator badge would call validator.swagger.io.
  validatorUrl: null,
})
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Photo Booth Service API</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`

/** swagger-ui-dist's folder in the server package's node_modules. */
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

export function docsRoutes({ config }: Pick<Services, 'config'>): Router {
  const router = Router()
  const policy = pageSecurityPolicy(config.publicUrl)
  router.use('/docs', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', policy)
    next()
  })
  router.get('/docs', (_req, res) => void res.type('html').send(PAGE))
  router.get('/docs/assets/init.js', (_req, res) => void res.type('text/javascript; charset=utf-8').send(INIT_SCRIPT))
  router.get('/docs/assets/:file', (req, res, next) => {
    const type = ASSETS[req.params.file]
    if (!type) return next()
    // `root`: the path inside node_modules/.pnpm has a dot-folder, which `send` refuses otherwise.
    res.type(type).sendFile(req.params.file, { root: SWAGGER_UI, maxAge: '1h' }, (error) => error && next(error))
  })
  return router
}
