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
 * ephemeral port of 127.0.0.1, without the demo, then `env` (an undefined value unsets a variable).
 */
export function serviceEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...process.env, MODE: 'development', HOST: '127.0.0.1', PORT: '0', SEED_DEMO: 'false', ...env }
}
