import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * The environment of the service in a child process of its own: this one's, in development, on an
 * ephemeral port of 127.0.0.1, without the demo and without the purge (the tests' events started
 * months ago: their sessions would be purged under them), then `env` (an undefined value unsets a variable).
 */
export function serviceEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...process.env, MODE: 'development', HOST: '127.0.0.1', PORT: '0', SEED_DEMO: 'false', PURGE: 'off', ...env }
}

/**
 * The environment of a production instance (the built server) on 127.0.0.1:`port`: what production
 * requires and nothing of this process's but PATH, then `env`.
 */
export function productionEnv(port: number, databaseUrl: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const publicUrl = `http://127.0.0.1:${port}`
  return {
    PATH: process.env.PATH,
    MODE: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PURGE: 'off',
    DATABASE_URL: databaseUrl,
    PUBLIC_URL: publicUrl,
    CDN_URL: 'https://cdn.example.com/photos',
    GALLERY_URL: `${publicUrl}/g`,
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    ...env,
  }
}
