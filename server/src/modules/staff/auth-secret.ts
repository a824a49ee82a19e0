import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The secret that signs staff session cookies: `AUTH_SECRET` (required in production), else, in
 * development, a random one kept in `DATA_DIR/auth-secret`, so that a restart (or `pnpm dev`'s reload)
 * does not sign everyone out.
 */
export async function resolveAuthSecret(secret: string | undefined, dataDir: string): Promise<string> {
  if (secret) return secret
  const file = join(dataDir, 'auth-secret')
  const kept = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    },
  )
  if (kept && kept.length >= 32) return kept
  await mkdir(dataDir, { recursive: true })
  const created = randomBytes(32).toString('base64url')
  // 'wx': of two first starts at once, one writes it and the other reads it.
  await writeFile(file, `${created}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  return (await readFile(file, 'utf8')).trim()
}
