/**
 * `status`: what a running connector (or the last one) says of itself in its state folder: whether it
 * runs, the service's state, the SDK queue's depth, sessions waiting, and the last error. Exit 0 when
 * it runs, 3 when it does not (the LSB's "not running"), so a script or a monitor can ask.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

type Status = {
  pid: number
  mode: string
  startedAt: number
  updatedAt: number
  service: 'up' | 'away'
  queueDepth: number
  open: number
  waiting: number
  completed: number
  failed: number
  setAside: number
  lastError: { at: number; text: string } | null
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function status(state: string, json: boolean): Promise<number> {
  const saved = await readFile(join(state, 'status.json'), 'utf8')
    .then((text) => JSON.parse(text) as Status)
    .catch(() => undefined)
  if (!saved) {
    const text = `no connector has run with the state folder ${state}`
    process.stdout.write(json ? `${JSON.stringify({ running: false, error: text })}\n` : `${text}\n`)
    return 3
  }
  const queued = (await readdir(join(state, 'queue')).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).length
  const running = isRunning(saved.pid)
  const answer = { running, ...saved, queueDepth: running ? saved.queueDepth : queued }
  if (json) process.stdout.write(`${JSON.stringify(answer)}\n`)
  else {
    const ago = (at: number) => `${Math.round((Date.now() - at) / 1000)} s ago`
    process.stdout.write(
      [
        `connector: ${running ? `running (pid ${saved.pid}, ${saved.mode} mode, since ${new Date(saved.startedAt).toISOString()})` : `not running (last seen ${ago(saved.updatedAt)})`}`,
        `service: ${saved.service}`,
        `queue depth: ${answer.queueDepth} upload(s) in the SDK's queue`,
        `sessions: ${saved.open} being filled, ${saved.waiting} waiting, ${saved.completed} completed, ${saved.failed} failed; ${saved.setAside} file(s) set aside (set-aside.log)`,
        `last error: ${saved.lastError ? `${saved.lastError.text} (${ago(saved.lastError.at)})` : 'none'}`,
      ].join('\n') + '\n',
    )
  }
  return running ? 0 : 3
}
