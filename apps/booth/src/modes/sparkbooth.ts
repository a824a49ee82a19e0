/**
 * `sparkbooth` mode: follows Sparkbooth's status file (Settings > Premium > General > "Write
 * application status to"), a line per state: `SESSION_START` opens a session, `SAVED_LAYOUT<TAB>path`
 * adds the layout it saved, `SESSION_COMPLETE` closes it, `SESSION_CANCELLED` abandons it. The file is
 * read from where the last read stopped (kept in the state folder, so a restart does not replay it);
 * a file that shrank was started anew and is read from its beginning.
 */
import { open, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import type { Connector } from '../connector.js'
import type { SessionRecord } from '../journal.js'
import type { Logger } from '../log.js'
import { whenStable } from './stable.js'

export type SparkboothOptions = { statusFile: string; state: string; stableSeconds: number; pollMs?: number }

export async function runSparkbooth(connector: Connector, options: SparkboothOptions, logger: Logger): Promise<() => Promise<void>> {
  const offsetFile = join(options.state, 'sparkbooth-offset.json')
  let offset = await readFile(offsetFile, 'utf8')
    .then((text) => JSON.parse(text) as { file: string; offset: number })
    .then((saved) => (saved.file === options.statusFile ? saved.offset : 0))
    .catch(() => 0)
  let current: SessionRecord | undefined = connector.openSessions().at(-1)
  let partial = ''
  let stopped = false

  const onLine = async (line: string) => {
    const [state, argument] = line.split('\t', 2) as [string, string | undefined]
    switch (state.trim()) {
      case 'SESSION_START':
        if (current) await connector.close(current)
        current = await connector.open({ source: 'sparkbooth' })
        return
      case 'SAVED_LAYOUT':
        if (!argument) return
        current ??= await connector.open({ source: 'sparkbooth' })
        await whenStable(argument.trim(), options.stableSeconds * 1000)
        await connector.addPhoto(current, argument.trim())
        return
      case 'SESSION_COMPLETE':
        if (current) await connector.close(current)
        current = undefined
        return
      case 'SESSION_CANCELLED':
        if (current) await connector.abandon(current)
        current = undefined
        return
    }
  }

  const readNew = async () => {
    const info = await stat(options.statusFile).catch(() => undefined)
    if (!info) return
    if (info.size < offset) {
      offset = 0
      partial = ''
    }
    if (info.size === offset) return
    const file = await open(options.statusFile, 'r')
    try {
      const buffer = Buffer.alloc(info.size - offset)
      const { bytesRead } = await file.read(buffer, 0, buffer.length, offset)
      offset += bytesRead
      const lines = (partial + buffer.subarray(0, bytesRead).toString('utf8')).split(/\r?\n/)
      partial = lines.pop() ?? ''
      for (const line of lines) if (line.trim() !== '') await onLine(line)
    } finally {
      await file.close()
    }
    // Written after the lines it covers were handled: a crash reads them again, and the journal skips what it took.
    await writeFile(offsetFile, JSON.stringify({ file: options.statusFile, offset: offset - Buffer.byteLength(partial) }))
  }

  const loop = (async () => {
    while (!stopped) {
      await readNew().catch((error: unknown) =>
        logger.error('fault', `sparkbooth: ${error instanceof Error ? error.message : String(error)}`),
      )
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250))
    }
  })()
  logger.info('mode.ready', `following Sparkbooth's status file ${options.statusFile}`)
  return async () => {
    stopped = true
    await loop
  }
}
