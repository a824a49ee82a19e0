/**
 * `folder` mode: JPEGs a camera tethering tool (or any booth program) writes into a folder. A file is
 * taken once its size has stopped changing for `--stable` seconds (chokidar's awaitWriteFinish, as
 * Breeze's own uploader waits a "stable time"), then grouped into sessions by the `--group` rule.
 * Originals stay where they are, or with `--after move` go to `done/` once delivered (`set-aside/`
 * when refused); files already taken by an earlier run are not taken again.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve } from 'node:path'

import { watch, type FSWatcher } from 'chokidar'

import type { Connector } from '../connector.js'
import type { SessionRecord } from '../journal.js'
import type { Logger } from '../log.js'
import type { GroupRule } from './grouping.js'

export type FolderOptions = {
  folder: string
  group: GroupRule
  stableSeconds: number
  after: 'leave' | 'move'
  /** A regular expression whose `session` group (or first group) is a session id in a file's name. */
  sessionPattern?: RegExp
}

/** How long a file noticed stable waits for others noticed just after it, to be taken in their written order. */
const REORDER_MS = 300

/** The sub-folders the mode writes into itself: never watched. */
const OWN = new Set(['done', 'set-aside'])

export function folderHooks(options: FolderOptions) {
  const root = resolve(options.folder)
  const moveInto = async (folder: string, path: string) => {
    await mkdir(join(root, folder), { recursive: true })
    const target = join(root, folder, basename(path))
    await rename(path, target)
    return target
  }
  return {
    onDelivered: async (record: SessionRecord) => {
      if (options.after !== 'move') return
      for (const photo of record.photos)
        if (dirname(resolve(photo.original)) === root) await moveInto('done', photo.original).catch(() => undefined)
    },
    onSetAside: async (path: string, reason: string) => {
      if (options.after !== 'move' || dirname(resolve(path)) !== root) return
      const target = await moveInto('set-aside', path)
      await writeFile(`${target}.reason.txt`, `${reason}\n`)
    },
  }
}

export async function runFolder(connector: Connector, options: FolderOptions, logger: Logger): Promise<() => Promise<void>> {
  const root = resolve(options.folder)
  await mkdir(root, { recursive: true })
  /** The session being filled, per group key ('' for the booth's own order, else a session id). */
  const filling = new Map<string, SessionRecord>()
  const timers = new Map<string, NodeJS.Timeout>()
  // A session the last run was filling goes on filling.
  for (const record of connector.openSessions()) filling.set(record.named ?? '', record)
  let chain = Promise.resolve()
  const inOrder = (work: () => Promise<void>) => {
    chain = chain
      .then(work)
      .catch((error: unknown) => logger.error('fault', `folder: ${error instanceof Error ? error.message : String(error)}`))
    return chain
  }

  const close = (key: string) =>
    inOrder(async () => {
      clearTimeout(timers.get(key))
      timers.delete(key)
      const record = filling.get(key)
      filling.delete(key)
      if (record) await connector.close(record)
    })

  const take = (path: string, stats: { size: number; mtimeMs: number } | undefined) =>
    inOrder(async () => {
      const name = basename(path)
      if (options.group.kind === 'marker' && options.group.pattern.test(name)) {
        for (const key of [...filling.keys()]) await closeNow(key)
        return
      }
      if (stats && connector.hasTaken(path, stats.size, stats.mtimeMs)) return
      const named = options.sessionPattern ? sessionIn(name, options.sessionPattern) : undefined
      const key = named ?? ''
      let record = filling.get(key)
      if (!record) filling.set(key, (record = await connector.open({ source: relative(root, path), ...(named && { named }) })))
      if (!(await connector.addPhoto(record, path))) return
      if (options.group.kind === 'count' && record.photos.length >= options.group.count) await closeNow(key)
      else if (options.group.kind === 'idle') {
        clearTimeout(timers.get(key))
        timers.set(
          key,
          setTimeout(() => void close(key), options.group.seconds * 1000),
        )
      }
    })

  const closeNow = async (key: string) => {
    clearTimeout(timers.get(key))
    timers.delete(key)
    const record = filling.get(key)
    filling.delete(key)
    if (!record) return
    // In the order they were written, whatever order their stable times were noticed in.
    record.photos.sort((a, b) => a.mtimeMs - b.mtimeMs || a.original.localeCompare(b.original))
    await connector.close(record)
  }

  /**
   * Files noticed stable within a moment of each other are taken in the order they were written
   * (their modification time, then name): the watcher's polls notice them in any order under load.
   */
  let noticed: { path: string; stats: { size: number; mtimeMs: number } | undefined }[] = []
  let settle: NodeJS.Timeout | undefined
  const notice = (path: string, stats: { size: number; mtimeMs: number } | undefined) => {
    noticed.push({ path, stats })
    clearTimeout(settle)
    settle = setTimeout(() => {
      const batch = noticed.sort((a, b) => (a.stats?.mtimeMs ?? 0) - (b.stats?.mtimeMs ?? 0) || a.path.localeCompare(b.path))
      noticed = []
      for (const file of batch) void take(file.path, file.stats)
    }, REORDER_MS)
  }

  const watcher: FSWatcher = watch(root, {
    depth: 0,
    ignoreInitial: false,
    alwaysStat: true,
    awaitWriteFinish: { stabilityThreshold: options.stableSeconds * 1000, pollInterval: 100 },
    ignored: (path, stats) => {
      if (resolve(path) === root) return false
      const name = basename(path)
      return name.startsWith('.') || (stats?.isDirectory() ?? OWN.has(name)) || name.endsWith('.reason.txt')
    },
  })
  watcher.on('add', (path, stats) => notice(resolve(path), stats))
  watcher.on('error', (error) => logger.error('fault', `watching ${root}: ${error instanceof Error ? error.message : String(error)}`))
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  logger.info(
    'mode.ready',
    `watching ${root} (a file is taken once stable for ${options.stableSeconds} s; sessions by ${describeRule(options.group)})`,
  )
  return async () => {
    await watcher.close()
    for (const timer of timers.values()) clearTimeout(timer)
    clearTimeout(settle)
    await chain
  }
}

function sessionIn(name: string, pattern: RegExp): string | undefined {
  const match = pattern.exec(name)
  return match?.groups?.session ?? match?.[1]
}

const describeRule = (rule: GroupRule) =>
  rule.kind === 'count' ? `${rule.count} photos` : rule.kind === 'idle' ? `a pause of ${rule.seconds} s` : `a marker file ${rule.text}`
