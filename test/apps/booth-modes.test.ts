/**
 * The booth connector's integrations (issue 33), each as a process against the real service, fed
 * as the booth software feeds it: dslrBooth's URL triggers with their parameters, Breeze's multipart
 * post-processing webhook (its answer: JSON metadata and the image unchanged), and Sparkbooth's status
 * file written line by line, a cancelled session among them.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { LocalStorage } from '@photobooth/server/modules/storage/local-storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { freePort } from '../support/processes.js'
import { cameraPhotos, event, sha256, startConnector, type RunningConnector } from './booth-connector.js'

const app = withTestServer()
let boothKey: string
let photos: Buffer[]
let work: string
const running: RunningConnector[] = []

beforeAll(async () => {
  boothKey = await createTestBoothKey(app, 'Software booth')
  photos = await cameraPhotos(4)
  work = await mkdtemp(join(tmpdir(), 'photobooth-booth-modes-'))
}, 120_000)
afterAll(async () => {
  await Promise.all(running.map((connector) => connector.kill()))
  await rm(work, { recursive: true, force: true })
})

async function registered(count: number) {
  const { sets } = await seedEvent(app.orm)
  const setId = sets[0]!.id
  const sessions = []
  for (let index = 0; index < count; index++)
    sessions.push(await registerGuests(app, setId, [{ name: `Guest ${index}`, email: `g${index}@example.org` }]))
  return { setId, sessions }
}

function connect(mode: string[], setId: string, name: string, more: string[] = []): RunningConnector {
  const connector = startConnector([...mode, '--service', app.url, '--set', setId, '--state', join(work, name), ...more], {
    PHOTOBOOTH_BOOTH_KEY: boothKey,
  })
  running.push(connector)
  return connector
}

async function delivered(sessionId: string) {
  const em = app.orm.em.fork()
  const [{ status }] = (await em.execute<{ status: string }[]>('select status from session where id = ?', [sessionId])) as [
    { status: string },
  ]
  const rows = await em.execute<{ storage_key: string }[]>('select storage_key from photo where session_id = ? order by position', [
    sessionId,
  ])
  const storage = app.storage as LocalStorage
  return { status, photos: await Promise.all(rows.map(async (row) => sha256(await readFile(storage.pathOf(row.storage_key)!)))) }
}

describe('the booth connector’s integrations', () => {
  it('dslrbooth: when dslrBooth calls its URL triggers for a session, then the originals and the final print it names go to the next guests’ session, in order', async () => {
    const { setId, sessions } = await registered(1)
    const port = await freePort()
    const connector = connect(['dslrbooth', '--listen', `127.0.0.1:${port}`], setId, 'dslrbooth')
    await connector.next(event('mode.ready'))
    // dslrBooth keeps its files in its own folder, the originals apart from the print.
    const folder = join(work, 'dslrBooth', 'Prints')
    await mkdir(join(folder, 'Originals'), { recursive: true })
    const originals = [0, 1, 2].map((index) => join(folder, 'Originals', `20260701_180${index}00.jpg`))
    for (const [index, path] of originals.entries()) await writeFile(path, photos[index]!)
    const final = join(folder, '20260701_180300.jpg')
    await writeFile(final, photos[3]!)
    const trigger = async (params: Record<string, string>) => {
      const response = await fetch(`http://127.0.0.1:${port}/dslrbooth?${new URLSearchParams(params).toString()}`)
      expect([response.status, await response.text()]).toEqual([200, 'OK\n'])
    }
    await trigger({ event_type: 'session_start', param1: 'print', param2: '' })
    await trigger({ event_type: 'countdown_start', param1: '3', param2: '' })
    for (const path of originals) await trigger({ event_type: 'file_download', param1: path, param2: '' })
    await trigger({ event_type: 'processing_start', param1: originals.join('|'), param2: final })
    await trigger({ event_type: 'sharing_screen', param1: '', param2: '' })
    await trigger({ event_type: 'session_end', param1: '', param2: '' })
    await connector.next(event('session.completed', 1), { past: true, ms: 120_000 })
    expect(await delivered(sessions[0]!)).toEqual({ status: 'completed', photos: [0, 1, 2, 3].map((index) => sha256(photos[index]!)) })
  }, 180_000)

  it('breeze: when Breeze posts each photo of a session to its post-processing webhook, then it gets the image back unchanged with JSON metadata, and the photos go to the next guests’ session', async () => {
    const { setId, sessions } = await registered(1)
    const port = await freePort()
    const connector = connect(['breeze', '--listen', `127.0.0.1:${port}`, '--group', 'idle:3'], setId, 'breeze')
    await connector.next(event('mode.ready'))
    for (const index of [0, 1, 2]) {
      const form = new FormData()
      form.append('fileToUpload', new Blob([photos[index]!], { type: 'image/jpeg' }), `IMG_${index}.jpg`)
      for (const [name, value] of Object.entries({
        eventkitesessionid: 'bz-5521',
        eventkitegalleryid: 'g-77',
        status: 'capture',
        model: 'Canon EOS R6',
        name: 'Wedding',
        time: '2026-07-01 18:00:00',
        version: '3.0',
      }))
        form.append(name, value)
      const response = await fetch(`http://127.0.0.1:${port}/breeze`, { method: 'POST', body: form })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/)
      const answer = await response.formData()
      expect(JSON.parse(answer.get('metadata') as string)).toMatchObject({ status: 'ok', delivered: true })
      expect(sha256(new Uint8Array(await (answer.get('fileToUpload') as Blob).arrayBuffer()))).toBe(sha256(photos[index]!))
    }
    await connector.next(event('session.completed', 1), { past: true, ms: 120_000 })
    expect(await delivered(sessions[0]!)).toEqual({ status: 'completed', photos: [0, 1, 2].map((index) => sha256(photos[index]!)) })
  }, 180_000)

  it('sparkbooth: when Sparkbooth writes its status file line by line, then each saved layout goes to its guests’ session, and a cancelled session cancels its guests’ (--on-cancel cancel)', async () => {
    const { setId, sessions } = await registered(3)
    const status = join(work, 'sparkbooth-status.txt')
    const layouts = [join(work, 'layout-1.jpg'), join(work, 'layout-3.jpg')]
    await writeFile(layouts[0]!, photos[2]!)
    await writeFile(layouts[1]!, photos[3]!)
    await writeFile(status, 'START\r\n')
    const connector = connect(['sparkbooth', status, '--on-cancel', 'cancel'], setId, 'sparkbooth')
    await connector.next(event('mode.ready'))
    const say = async (...lines: string[]) => {
      for (const line of lines) {
        await appendFile(status, `${line}\r\n`)
        await new Promise((resolve) => setTimeout(resolve, 30))
      }
    }
    await say(
      'SESSION_START',
      'COUNTDOWN',
      'TAKE_PHOTO_1',
      'TAKE_PHOTO_2',
      'DEVELOPING_PHOTOS',
      `SAVED_LAYOUT\t${layouts[0]}`,
      'PREVIEW',
      'SESSION_COMPLETE',
      'START',
    )
    await say('SESSION_START', 'COUNTDOWN', 'SESSION_CANCELLED', 'START')
    await say('SESSION_START', 'TAKE_PHOTO_1', `SAVED_LAYOUT\t${layouts[1]}`, 'SESSION_COMPLETE', 'START')
    await connector.next(event('session.completed', 3), { past: true, ms: 120_000 })
    await connector.next(event('session.cancelled', 2), { past: true })
    expect(await Promise.all(sessions.map(delivered))).toEqual([
      { status: 'completed', photos: [sha256(photos[2]!)] },
      { status: 'cancelled', photos: [] },
      { status: 'completed', photos: [sha256(photos[3]!)] },
    ])
  }, 180_000)
})
