/**
 * The staff console (issue 34) run by an owner, in Chromium against the real service: signing in
 * with a second factor, an event, a set and a scoped booth key made on the console's screens, the
 * kiosk's address read there; then the live view while a booth (the SDK) registers and completes
 * sessions: they appear without a reload, a message turns delivered when the provider's webhook
 * comes, a resend and a retry reach the providers; last, one guest found, exported and erased, and
 * gone from the live view. Every screen is checked by axe and photographed at 390 and 1280 px.
 */
import { readFile } from 'node:fs/promises'

import { loadSettings } from '@photobooth/server/config'
import { createStaffMember } from '@photobooth/server/modules/members/members.service'
import { createBoothClient, uploadPhotos } from '@photobooth/sdk/booth'
import { createKioskClient } from '@photobooth/sdk/kiosk'
import sharp from 'sharp'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { launchChromium, type Guest } from '../support/browser.js'
import { consoleProblems, look, openConsole, openMenu } from '../support/console.js'
import { scratchDatabases } from '../support/databases.js'
import {
  startFakePostmark,
  startFakeTwilio,
  TWILIO_INVALID_NUMBER,
  type FakePostmark,
  type FakeProvider,
} from '../support/fake-providers.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { signedInStaff, signIn, sessionCookie, staffFetch, type StaffSession } from '../support/staff.js'
import { totpCode } from '../support/totp.js'
import { postmarkDelivery, postmarkWebhook, webhookSettings } from '../support/webhooks.js'

const databases = scratchDatabases('console')
const OWNER = { email: 'olivia.owner@example.org', name: 'Olivia Owner', password: 'pale violet kettle orbit' }

let postmark: FakePostmark
let twilio: FakeProvider
let app: TestServer
let api: StaffSession
let browser: Browser
let owner: Guest
let totpURI: string
/** What the first test made on the console, for the next ones. */
const made = { eventId: '', setId: '', slug: '', boothKey: '' }

beforeAll(async () => {
  postmark = await startFakePostmark()
  twilio = await startFakeTwilio()
  const defaults = loadSettings({ MODE: 'development' })
  app = await startTestServer({
    databaseUrl: await databases.create(),
    copies: { ...defaults.copies, linkWaitMs: 0 },
    delivery: {
      ...defaults.delivery,
      ...webhookSettings(twilio.url),
      dispatch: true,
      email: {
        kind: 'postmark',
        serverToken: 'postmark-token',
        from: 'photos@example.com',
        messageStream: 'outbound',
        apiUrl: postmark.url,
        timeoutMs: 2_000,
      },
      dispatcher: { ...defaults.delivery.dispatcher, intervalMs: 50, baseDelayMs: 20, maxDelayMs: 100 },
    },
  })
  await createStaffMember({ auth: app.auth }, { ...OWNER, role: 'owner' })
  totpURI = await setUpSecondFactor(OWNER.email, OWNER.password)
  // The test's own look at what the console did, through the API.
  api = await signedInStaff(app, 'Test reader', 'owner')
  browser = await launchChromium()
  owner = await openConsole(browser, app)
}, 120_000)
afterAll(async () => {
  await owner?.context.close()
  await browser?.close()
  await app?.stop()
  await postmark?.close()
  await twilio?.close()
  await databases.dropAll()
})

/** The owner's authenticator, set up as a member does it (password, then a first code): its otpauth URI. */
async function setUpSecondFactor(email: string, password: string): Promise<string> {
  const cookie = sessionCookie(await signIn(app, email, password))
  const post = (path: string, body: unknown) =>
    fetch(`${app.url}/api/auth/two-factor/${path}`, {
      method: 'POST',
      headers: { cookie, origin: app.config.publicUrl, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const { totpURI: uri } = (await (await post('enable', { password })).json()) as { totpURI: string }
  expect((await post('verify-totp', { code: totpCode(uri) })).status).toBe(200)
  return uri
}

/** A logo as a business uploads one: a PNG of a few KB. */
const logoPng = () =>
  sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="64"><rect width="240" height="64" rx="14" fill="#b4235a"/><circle cx="40" cy="32" r="16" fill="#fff"/></svg>',
    ),
  )
    .png()
    .toBuffer()

const sessionCard = (page: Page, label: string) =>
  page.locator('article.session').filter({ has: page.getByRole('heading', { name: label, exact: true }) })

describe('an owner runs an event from the console', () => {
  it('when the owner signs in with a second factor, then they create an event, a set and a booth key for that event, and read the kiosk’s address', async () => {
    const { page } = owner
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    await look(page, 'sign-in')
    await page.getByLabel('Email').fill(OWNER.email)
    await page.getByLabel('Password').fill('not the password at all')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Wrong email or password.')
    await page.getByLabel('Password').fill(OWNER.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Your second factor' }).waitFor()
    await look(page, 'second-factor')
    await page.getByLabel('Code').fill(totpCode(totpURI, Date.now() + 30_000))
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.getByRole('heading', { name: 'No events yet' }).waitFor()
    await look(page, 'events-empty')

    await page.getByRole('link', { name: 'New event' }).click()
    await page.getByLabel('Name', { exact: true }).fill('Summer Gala 2026')
    await expect(page.getByLabel('Web address').inputValue()).resolves.toBe('summer-gala-2026')
    await page.getByLabel('Starts').fill('2026-07-04T18:00')
    await page.getByLabel('Business name').fill('Flashbulb Booths')
    await page.getByLabel('Tagline').fill('Thanks for celebrating with us!')
    await page.getByLabel('Accent colour').fill('#b4235a')
    await page.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: await logoPng() })
    await page.getByRole('figure', { name: 'Preview of a guest’s gallery' }).getByRole('img', { name: 'Flashbulb Booths' }).waitFor()
    await look(page, 'event-new')
    await page.getByRole('button', { name: 'Create the event' }).click()
    await page.getByRole('heading', { name: 'No sets yet' }).waitFor()
    made.eventId = /\/console\/events\/([\w-]+)\/sets$/.exec(page.url())![1]!
    const event = await (await staffFetch(app, api, `/staff/events/${made.eventId}`)).json()
    expect(event).toMatchObject({
      name: 'Summer Gala 2026',
      slug: 'summer-gala-2026',
      startAt: new Date(2026, 6, 4, 18, 0).getTime(),
      isPrivate: true,
      branding: {
        businessName: 'Flashbulb Booths',
        tagline: 'Thanks for celebrating with us!',
        accentColor: '#b4235a',
        logo: { url: expect.any(String) },
      },
    })
    made.slug = event.slug

    await page.getByLabel('Set name').fill('Photo Wall')
    await page.getByRole('button', { name: 'Add the set' }).click()
    const set = page.getByRole('article', { name: 'Photo Wall' })
    const kioskUrl = `${app.url}/kiosk/summer-gala-2026/photo-wall`
    await expect(set.locator('.kiosk-url').textContent()).resolves.toBe(kioskUrl)
    await set
      .getByRole('img', { name: /QR code of Photo Wall’s kiosk address/ })
      .locator('path')
      .waitFor()
    await set.getByRole('button', { name: 'Copy the address' }).click()
    await expect(page.evaluate<string>('navigator.clipboard.readText()')).resolves.toBe(kioskUrl)
    await look(page, 'sets')
    made.setId = (await (await staffFetch(app, api, `/staff/events/${made.eventId}`)).json()).sets[0].id

    await openMenu(page, 'Booth keys')
    await page.getByLabel('Booth name').fill('Mirror booth 1')
    await page.getByRole('checkbox', { name: 'Summer Gala 2026' }).check()
    await page.getByRole('button', { name: 'Create the key' }).click()
    const secret = page.locator('.secret-box code')
    made.boothKey = (await secret.textContent())!
    expect(made.boothKey).toMatch(/^pbk_[\w-]+_[\w-]+$/)
    await look(page, 'booth-key-created')
    await page.getByRole('button', { name: 'Done' }).click()
    await page.locator('.secret-box').waitFor({ state: 'detached' })
    await expect(page.getByRole('article', { name: /Mirror booth 1/ }).textContent()).resolves.toContain('Summer Gala 2026')
    const { keys } = await (await staffFetch(app, api, '/staff/booth-keys')).json()
    expect(keys).toEqual([expect.objectContaining({ name: 'Mirror booth 1', eventIds: [made.eventId], unscoped: false, lastUsedAt: null })])
    await look(page, 'booth-keys')
    expect(consoleProblems(owner)).toEqual([])
  })

  it('when a booth registers and completes sessions while the live view is open, then they appear without a reload, a link turns delivered at the provider’s webhook, and a resend and a retry reach the providers', async () => {
    const { page } = owner
    await openMenu(page, 'Events')
    await page.getByRole('link', { name: /Summer Gala 2026/ }).click()
    await page.getByRole('heading', { name: 'No sessions yet' }).waitFor()
    const kiosk = createKioskClient({ baseUrl: app.url })
    const booth = createBoothClient({ baseUrl: app.url, boothKey: made.boothKey })

    // A kiosk registers a group: the live view shows it with no reload.
    const group = await kiosk.kiosk.registerGuests({
      params: { setId: made.setId },
      body: {
        guests: [
          { name: 'Ada Lovelace', email: 'ada@example.org' },
          { name: 'Grace Hopper', phone: '(415) 555-2671' },
        ],
      },
    })
    const card = sessionCard(page, 'Ada & Grace')
    await expect(card.locator('.badge').first().textContent()).resolves.toBe('Shooting')
    await expect(card.textContent()).resolves.toContain('ada@example.org')

    // The booth completes it: gallery live, both links sent, then the email delivered by Postmark's webhook.
    await uploadPhotos(booth, group.id, [makeJpeg(64, 48, 1), makeJpeg(48, 64, 2)])
    await card.getByText('Gallery live').waitFor()
    await card.getByText('Email · Sent').waitFor({ timeout: 20_000 })
    await card.getByText('SMS · Sent').waitFor()
    const session = await (await staffFetch(app, api, `/staff/sessions/${group.id}`)).json()
    const email = session.guests[0].messages[0]
    const delivered = await postmarkWebhook(
      app,
      postmarkDelivery({ outboxMessageId: email.id, providerMessageId: email.providerMessageId, email: 'ada@example.org' }),
    )
    expect(delivered.status).toBe(200)
    await card.getByText('Email · Delivered').waitFor()
    await look(page, 'live')

    // A number the carrier refuses: the link fails with the provider's reason, and a retry sends it again.
    twilio.queue(TWILIO_INVALID_NUMBER)
    const alan = await kiosk.kiosk.registerGuests({
      params: { setId: made.setId },
      body: { guests: [{ name: 'Alan Turing', phone: '(202) 555-0142' }] },
    })
    await uploadPhotos(booth, alan.id, [makeJpeg(64, 48, 3)])
    const alanCard = sessionCard(page, 'Alan Turing')
    await alanCard.getByText('SMS · Failed').waitFor({ timeout: 20_000 })
    await expect(alanCard.locator('.reason').textContent()).resolves.toMatch(/not a valid phone number/)
    await look(page, 'live-failed')
    const smsBefore = twilio.requests.length
    await alanCard.getByRole('button', { name: 'Retry failed' }).click()
    await twilio.received(smsBefore + 1)
    await alanCard.getByText('SMS · Sent').waitFor({ timeout: 20_000 })

    // A minute later (the links went out more than a minute ago), a resend reaches both providers again.
    await app.orm.em
      .fork()
      .execute(
        "update outbox_message set created_at = created_at - interval '2 minutes', sent_at = sent_at - interval '2 minutes' where session_id = ?",
        [group.id],
      )
    const [emailsBefore, smsAgain] = [postmark.requests.length, twilio.requests.length]
    await card.getByRole('button', { name: 'Send the link again' }).click()
    await card.getByText('2 links on the way.').waitFor()
    await postmark.received(emailsBefore + 1)
    await twilio.received(smsAgain + 1)
    expect(postmark.requests.at(-1)!.body).toContain('ada@example.org')
    await card.getByText('1 earlier try').first().waitFor()
    expect(consoleProblems(owner)).toEqual([])
  })

  it('when the owner finds a guest, then they export her data and erase her, and she is gone from the live view', async () => {
    const { page } = owner
    await openMenu(page, 'People')
    await page.getByLabel('Their email').fill('ADA@example.org')
    await page.getByRole('button', { name: 'Find' }).click()
    const person = page.getByRole('article', { name: 'Ada Lovelace' })
    await expect(person.textContent()).resolves.toContain('Summer Gala 2026')
    await look(page, 'people')

    const download = page.waitForEvent('download')
    await person.getByRole('button', { name: 'Export their data' }).click()
    const file = await download
    expect(file.suggestedFilename()).toBe('Ada Lovelace - data.json')
    const exported = JSON.parse(await readFile(await file.path(), 'utf8'))
    expect(exported).toMatchObject({
      person: { name: 'Ada Lovelace', email: 'ada@example.org' },
      registrations: [{ event: { name: 'Summer Gala 2026' } }],
    })
    expect(JSON.stringify(exported)).not.toContain('Grace')

    await person.getByRole('button', { name: 'Erase' }).click()
    const dialog = page.getByRole('dialog', { name: 'Erase Ada Lovelace?' })
    await look(page, 'people-erase')
    await dialog.getByRole('button', { name: 'Erase for good' }).click()
    await page.getByText(/^Ada Lovelace is erased/).waitFor()

    await openMenu(page, 'Events')
    await page.getByRole('link', { name: /Summer Gala 2026/ }).click()
    await sessionCard(page, 'Grace Hopper').waitFor()
    await expect(page.locator('.sessions').textContent()).resolves.not.toMatch(/Ada|ada@example\.org/)
    expect(consoleProblems(owner)).toEqual([])
  })
})
