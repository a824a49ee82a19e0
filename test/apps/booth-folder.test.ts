/**
 * The booth connector in `folder` mode, as a process against the real service (issue 33): camera
 * photos copied into a hot folder slowly, one written in chunks over 2 s; a PNG, an empty file and a
 * truncated JPEG among them. Each group of four becomes the next registered session, completed once
 * with its photos in order; the bad files are set aside with their reasons; no original changes.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { LocalStorage } from '@photobooth/server/modules/storage/local-storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { cameraPhotos, event, sha256, startConnector, writeSlowly, type RunningConnector } from './booth-connector.js'

const app = withTestServer()
let boothKey: string
let photos: Buffer[]
let work: string
const running: RunningConnector[] = []

beforeAll(async () => {
  boothKey = await createTestBoothKey(app, 'Folder booth')
  photos = await cameraPhotos(4)
  work = await mkdtemp(join(tmpdir(), 'photobooth-booth-folder-'))
}, 120_000)
afterAll(async () => {
  await Promise.all(running.map((connector) => connector.kill()))
  await rm(work, { recursive: true, force: true })
})

/** The stored bytes' hashes of a session's photos, in gallery order. */
async function storedPhotos(sessionId: string): Promise<string[]> {
  const rows = await app.orm.em
    .fork()
    .execute<{ storage_key: string }[]>('select storage_key from photo where session_id = ? order by position', [sessionId])
  const storage = app.storage as LocalStorage
  return Promise.all(rows.map(async (row) => sha256(await readFile(storage.pathOf(row.storage_key)!))))
}

async function sessionRows(setId: string) {
  return app.orm.em.fork().execute<{ id: string; status: string; photo_count: number; messages: number }[]>(
    `select s.id, s.status, s.photo_count, (select count(*)::int from outbox_message m where m.session_id = s.id) as messages
         from session s where s.set_id = ? order by s.created_at, s.id`,
    [setId],
  )
}

describe('the booth connector, folder mode', () => {
  it('when three sessions of four camera photos are copied in slowly, with a PNG, an empty file and a truncated JPEG among them, then each group completes its guests’ session once, in order, and the bad files are set aside with their reasons', async () => {
    const { sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const sessions = []
    for (const name of ['Ada', 'Grace', 'Katherine'])
      sessions.push(await registerGuests(app, setId, [{ name, email: `${name.toLowerCase()}@example.org` }]))
    const folder = join(work, 'hot')
    const state = join(work, 'state')
    const connector = startConnector(
      ['folder', folder, '--service', app.url, '--set', setId, '--state', state, '--group', 'count:4', '--stable', '1'],
      {
        PHOTOBOOTH_BOOTH_KEY: boothKey,
      },
    )
    running.push(connector)
    await connector.next(event('mode.ready'))

    const written: Record<string, Buffer> = {}
    const put = async (name: string, bytes: Buffer, ms = 200) => {
      written[name] = bytes
      await writeSlowly(join(folder, name), bytes, ms)
    }
    // The first photo arrives in chunks over 2 s: it must not be taken before it is whole.
    await put('IMG_0001.JPG', photos[0]!, 2000)
    await put('IMG_0002.JPG', photos[1]!)
    await put('notes.png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))
    await put('IMG_0003.JPG', photos[2]!)
    await put('IMG_0004.JPG', photos[3]!)
    await put('IMG_0005.JPG', Buffer.alloc(0))
    for (const index of [0, 1, 2, 3]) await put(`IMG_00${String(index + 6).padStart(2, '0')}.JPG`, photos[(index + 1) % 4]!)
    await put('IMG_0010.JPG', photos[0]!.subarray(0, photos[0]!.length / 2))
    for (const index of [0, 1, 2, 3]) await put(`IMG_00${index + 11}.JPG`, photos[(index + 2) % 4]!)

    for (const number of [1, 2, 3]) await connector.next(event('session.completed', number), { past: true, ms: 120_000 })
    const rows = await sessionRows(setId)
    expect(rows.map((row) => [row.id, row.status, row.photo_count, row.messages])).toEqual(sessions.map((id) => [id, 'completed', 4, 1]))
    expect(await storedPhotos(sessions[0]!)).toEqual([0, 1, 2, 3].map((index) => sha256(photos[index]!)))
    expect(await storedPhotos(sessions[1]!)).toEqual([1, 2, 3, 0].map((index) => sha256(photos[index]!)))
    expect(await storedPhotos(sessions[2]!)).toEqual([2, 3, 0, 1].map((index) => sha256(photos[index]!)))
    expect(connector.count(event('session.completed'))).toBe(3)

    const setAside = (await readFile(join(state, 'set-aside.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split('\t').slice(1))
    expect(setAside).toEqual([
      [join(folder, 'notes.png'), 'not a JPEG (a PNG image)'],
      [join(folder, 'IMG_0005.JPG'), 'empty file'],
      [join(folder, 'IMG_0010.JPG'), 'truncated JPEG (no end-of-image marker: the file was cut short)'],
    ])
    // The originals are where they were, as they were.
    for (const [name, bytes] of Object.entries(written)) expect(sha256(await readFile(join(folder, name)))).toBe(sha256(bytes))
    // The last gallery's link, for the booth's screen; never in a log line.
    const link = (await readFile(join(state, 'link/latest.txt'), 'utf8')).trim()
    expect(link).toMatch(new RegExp(`/g/${sessions[2]}$`))
    expect((await readFile(join(state, 'link/latest.png'))).subarray(1, 4).toString()).toBe('PNG')
    for (const session of sessions) expect(JSON.stringify(connector.lines)).not.toContain(session)
    expect(connector.lines.every((line) => typeof line.time === 'string' && typeof line.event === 'string')).toBe(true)

    connector.child.kill('SIGTERM')
    expect(await connector.exited).toEqual({ code: 0, signal: null })
    expect(await readdir(join(state, 'queue'))).toEqual([])
  }, 180_000)

  it('when file names carry a session id (a QR the business printed), then those photos go to that session, not the next; with --after move, delivered originals go to done/ and refused ones to set-aside/ with their reason', async () => {
    const { sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const first = await registerGuests(app, setId, [{ name: 'First', email: 'first@example.org' }])
    const named = await registerGuests(app, setId, [{ name: 'Named', email: 'named@example.org' }])
    const folder = join(work, 'named')
    // The pattern and the move are settings kept in a config file, as an operator would keep them.
    const config = join(work, 'named.json')
    await writeFile(config, JSON.stringify({ sessionPattern: '^(?<session>[A-Za-z0-9_-]{22})-', after: 'move' }))
    const moved = startConnector(
      [
        'folder',
        folder,
        '--config',
        config,
        '--service',
        app.url,
        '--set',
        setId,
        '--state',
        join(work, 'named-state'),
        '--group',
        'count:2',
        '--stable',
        '0.5',
      ],
      { PHOTOBOOTH_BOOTH_KEY: boothKey },
    )
    running.push(moved)
    await moved.next(event('mode.ready'))
    await writeSlowly(join(folder, `${named}-1.jpg`), photos[3]!, 100)
    await writeSlowly(join(folder, `${named}-2.txt`), Buffer.from('not a photo'), 100)
    await writeSlowly(join(folder, `${named}-3.jpg`), photos[2]!, 100)
    await moved.next(event('session.completed', 1), { past: true, ms: 120_000 })
    expect(await storedPhotos(named)).toEqual([sha256(photos[3]!), sha256(photos[2]!)])
    expect((await sessionRows(setId)).map((row) => [row.id, row.status])).toEqual([
      [first, 'active'],
      [named, 'completed'],
    ])
    expect((await readdir(join(folder, 'done'))).sort()).toEqual([`${named}-1.jpg`, `${named}-3.jpg`])
    expect((await readdir(join(folder, 'set-aside'))).sort()).toEqual([`${named}-2.txt`, `${named}-2.txt.reason.txt`])
    expect(await readFile(join(folder, 'set-aside', `${named}-2.txt.reason.txt`), 'utf8')).toBe('not a JPEG (unknown content)\n')
    expect(JSON.stringify(moved.lines)).not.toContain(named)
  }, 180_000)
})
