/**
 * The connector's journal on disk: one JSON file per booth session (`sessions/<n>.json`) and a copy of
 * each of its photos beside it (`sessions/<n>/`), each written to a temporary name, synced and
 * renamed before the step it records is taken. A kill -9 or a power cut leaves the record as it was
 * before a step or after it, never half; the next start goes on from there.
 */
import { randomBytes } from 'node:crypto'
import { appendFile, copyFile, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'

export type JournalPhoto = {
  /** The original's path, as the booth software wrote it (never changed by the connector). */
  original: string
  /** Its size and modification time when taken: the same file is not taken twice. */
  size: number
  mtimeMs: number
  /** The connector's own copy, what is uploaded. */
  copy: string
}

export type SessionState =
  /** Photos still coming. */
  | 'open'
  /** Whole: waits for its guests' session. */
  | 'closed'
  /** A session of the queue is claimed for it; its upload is next. */
  | 'claimed'
  /** In the SDK's queue (its own journal), until the service completed it. */
  | 'uploading'
  | 'completed'
  /** The booth abandoned it: nothing to deliver (its queue session cancelled, with --on-cancel cancel). */
  | 'cancelled'
  /** Refused for good: its photos set aside, with the reason. */
  | 'failed'

export type SessionRecord = {
  /** The connector's number for it: what its log lines say. */
  number: number
  createdAt: number
  state: SessionState
  /** What the input calls it (a Breeze session id, a group key of the folder mode). */
  source?: string
  /** A session id found in a file's name (a QR the business printed): claimed by name. */
  named?: string
  photos: JournalPhoto[]
  /** Cancel the next session of the queue for it (the booth abandoned this group). */
  cancel?: boolean
  /** Sessions claimed for it so far (another is claimed when one goes from under it). */
  claims?: number
  /** The Idempotency-Key of its claim, kept before the claim is sent: a retry answers the same session. */
  claimKey?: string
  claimedAt?: number
  sessionId?: string
  galleryUrl?: string
  reason?: string
  updatedAt: number
}

async function writeDurably(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`
  const file = await open(temporary, 'w')
  try {
    await file.writeFile(text)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temporary, path)
}

/** Copies a file (by the system, not through this process's memory), synced before it is visible under its name. */
async function copyDurably(from: string, to: string): Promise<void> {
  const temporary = `${to}.tmp`
  await copyFile(from, temporary)
  const target = await open(temporary, 'r+')
  try {
    await target.sync()
  } finally {
    await target.close()
  }
  await rename(temporary, to)
}

export class Journal {
  private readonly folder: string
  constructor(readonly state: string) {
    this.folder = join(state, 'sessions')
  }

  async load(): Promise<SessionRecord[]> {
    await mkdir(this.folder, { recursive: true })
    const names = (await readdir(this.folder)).filter((name) => /^\d+\.json$/.test(name))
    const records: SessionRecord[] = []
    for (const name of names) {
      try {
        records.push(JSON.parse(await readFile(join(this.folder, name), 'utf8')) as SessionRecord)
      } catch {
        // Only a torn temporary file can be unreadable (records are renamed into place whole).
        await rename(join(this.folder, name), join(this.folder, `${name}.unreadable`)).catch(() => undefined)
      }
    }
    return records.sort((a, b) => a.number - b.number)
  }

  async save(record: SessionRecord): Promise<void> {
    record.updatedAt = Date.now()
    await writeDurably(join(this.folder, `${record.number}.json`), JSON.stringify(record, null, 1))
  }

  /** The connector's copy of a photo, made before the photo joins its session's record. */
  async keep(record: SessionRecord, original: string): Promise<string> {
    const folder = join(this.folder, String(record.number))
    await mkdir(folder, { recursive: true })
    const copy = join(folder, `${record.photos.length + 1}.jpg`)
    await copyDurably(original, copy)
    return copy
  }

  /** The copies of a delivered or abandoned session: the originals stay where they are. */
  async dropCopies(record: SessionRecord): Promise<void> {
    await rm(join(this.folder, String(record.number)), { recursive: true, force: true })
  }

  /** One line per file set aside, with why: `<time>\t<path>\t<reason>`. */
  async setAside(path: string, reason: string): Promise<void> {
    await appendFile(join(this.state, 'set-aside.log'), `${new Date().toISOString()}\t${path}\t${reason}\n`)
  }
}
