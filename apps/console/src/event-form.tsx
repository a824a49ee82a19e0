/**
 * An event's settings, for creating and for editing: name, web address, start, privacy, the privacy
 * notice, phone country, listing, retention (owners), the kiosk's language and idle time, and its
 * branding with a preview of what guests see.
 */
import { useState, type FormEvent, type ReactNode } from 'react'

import type { client, StaffEvent, StaffMember } from './api.js'
import { fromLocalInput, toLocalInput } from './format.js'
import { mayAct, OWNER_ONLY_FIELDS } from './roles.js'
import { Button, ErrorNote, Field } from './ui.js'

export type NewEventBody = Parameters<typeof client.staff.events.create>[0]['body']
export type EventChangesBody = Parameters<typeof client.staff.events.update>[0]['body']
type Language = NonNullable<StaffEvent['language']>

const LANGUAGES: Record<Language, string> = { en: 'English', es: 'Español', it: 'Italiano' }
/** What the service takes for a logo (sdk/src/schemas/event.ts): a PNG, JPEG or WebP of at most 48 KB. */
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp']
const LOGO_MAX_BYTES = 48 * 1024

type Draft = {
  name: string
  slug: string
  startAt: string
  isPrivate: boolean
  phoneCountry: string
  listGuestsByDefault: boolean
  retentionDays: string
  language: Language
  kioskIdleSeconds: string
  noticeVersion: string
  noticeUrl: string
  noticeText: string
  businessName: string
  businessUrl: string
  accentColor: string
  tagline: string
  /** A new logo (a data: URL), null to remove it, undefined to keep what is stored. */
  logo: string | null | undefined
}

function draftOf(event: StaffEvent | undefined): Draft {
  const branding = event?.branding ?? {}
  return {
    name: event?.name ?? '',
    slug: event?.slug ?? '',
    startAt: toLocalInput(event?.startAt ?? nextEvening()),
    isPrivate: event?.isPrivate ?? true,
    phoneCountry: event?.phoneCountry ?? '',
    listGuestsByDefault: event?.listGuestsByDefault ?? true,
    retentionDays: event?.retentionDays ? String(event.retentionDays) : '',
    language: event?.language ?? 'en',
    kioskIdleSeconds: event?.kioskIdleSeconds ? String(event.kioskIdleSeconds) : '',
    noticeVersion: event?.privacyNotice?.version ?? '',
    noticeUrl: event?.privacyNotice?.url ?? '',
    noticeText: event?.privacyNotice?.text ?? '',
    businessName: branding.businessName ?? '',
    businessUrl: branding.businessUrl ?? '',
    accentColor: branding.accentColor ?? '',
    tagline: branding.tagline ?? '',
    logo: undefined,
  }
}

/** Tomorrow at 18:00 here: a sensible first start. */
function nextEvening(): number {
  const date = new Date()
  date.setDate(date.getDate() + 1)
  date.setHours(18, 0, 0, 0)
  return date.getTime()
}

/** A slug from a name: "Summer Gala 2026" → "summer-gala-2026". */
export const slugOf = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)

const orNull = (text: string) => (text.trim() === '' ? null : text.trim())
const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text))

function noticeOf(draft: Draft) {
  if (!draft.noticeVersion.trim()) return null
  return {
    version: draft.noticeVersion.trim(),
    ...(draft.noticeUrl.trim() ? { url: draft.noticeUrl.trim() } : {}),
    ...(draft.noticeText.trim() ? { text: draft.noticeText.trim() } : {}),
  }
}

function brandingOf(draft: Draft) {
  return {
    ...(draft.businessName.trim() ? { businessName: draft.businessName.trim() } : {}),
    ...(draft.businessUrl.trim() ? { businessUrl: draft.businessUrl.trim() } : {}),
    ...(draft.accentColor ? { accentColor: draft.accentColor } : {}),
    ...(draft.tagline.trim() ? { tagline: draft.tagline.trim() } : {}),
    ...(draft.logo !== undefined ? { logo: draft.logo } : {}),
  }
}

/** What a new event is made of. */
export function newEventBody(draft: Draft, owner: boolean): NewEventBody {
  const notice = noticeOf(draft)
  const branding = brandingOf(draft)
  return {
    name: draft.name.trim(),
    slug: draft.slug,
    startAt: fromLocalInput(draft.startAt),
    isPrivate: draft.isPrivate,
    listGuestsByDefault: draft.listGuestsByDefault,
    language: draft.language,
    ...(draft.phoneCountry ? { phoneCountry: draft.phoneCountry } : {}),
    ...(notice ? { privacyNotice: notice } : {}),
    ...(owner && draft.retentionDays ? { retentionDays: Number(draft.retentionDays) } : {}),
    ...(draft.kioskIdleSeconds ? { kioskIdleSeconds: Number(draft.kioskIdleSeconds) } : {}),
    ...(Object.keys(branding).length > 0 ? { branding } : {}),
  }
}

/**
 * Only what changed: a manager's save then never touches what only an owner may change (retention),
 * and a start left as it was is not "moved".
 */
export function eventChanges(before: Draft, draft: Draft, owner: boolean): Partial<EventChangesBody> {
  const changes: Partial<EventChangesBody> = {}
  if (draft.name.trim() !== before.name) changes.name = draft.name.trim()
  if (draft.slug !== before.slug) changes.slug = draft.slug
  if (draft.startAt !== before.startAt) changes.startAt = fromLocalInput(draft.startAt)
  if (draft.isPrivate !== before.isPrivate) changes.isPrivate = draft.isPrivate
  if (draft.phoneCountry !== before.phoneCountry) changes.phoneCountry = orNull(draft.phoneCountry)
  if (draft.listGuestsByDefault !== before.listGuestsByDefault) changes.listGuestsByDefault = draft.listGuestsByDefault
  if (owner && draft.retentionDays !== before.retentionDays) changes.retentionDays = numberOrNull(draft.retentionDays)
  if (draft.language !== before.language) changes.language = draft.language
  if (draft.kioskIdleSeconds !== before.kioskIdleSeconds) changes.kioskIdleSeconds = numberOrNull(draft.kioskIdleSeconds)
  if (JSON.stringify(noticeOf(draft)) !== JSON.stringify(noticeOf(before))) changes.privacyNotice = noticeOf(draft)
  if (JSON.stringify(brandingOf(draft)) !== JSON.stringify(brandingOf(before))) changes.branding = brandingOf(draft)
  return changes
}

export function EventForm({
  me,
  event,
  submitLabel,
  busy,
  error,
  onSubmit,
}: {
  me: StaffMember
  event?: StaffEvent
  submitLabel: string
  busy: boolean
  error: unknown
  onSubmit: (draft: Draft, before: Draft) => void
}) {
  const [before] = useState(() => draftOf(event))
  const [draft, setDraft] = useState(before)
  const [slugEdited, setSlugEdited] = useState(event !== undefined)
  const [logoProblem, setLogoProblem] = useState<string>()
  const owner = mayAct(me.role, OWNER_ONLY_FIELDS.retention)
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }))

  const readLogo = (file: File | undefined) => {
    setLogoProblem(undefined)
    if (!file) return
    if (!LOGO_TYPES.includes(file.type)) return setLogoProblem('The logo must be a PNG, JPEG or WebP image.')
    if (file.size > LOGO_MAX_BYTES) return setLogoProblem(`The logo is ${Math.ceil(file.size / 1024)} KB: at most 48 KB, please.`)
    const reader = new FileReader()
    reader.onload = () => typeof reader.result === 'string' && set('logo', reader.result)
    reader.readAsDataURL(file)
  }
  const submit = (formEvent: FormEvent) => {
    formEvent.preventDefault()
    onSubmit(draft, before)
  }
  const logoShown = draft.logo === undefined ? event?.branding?.logo?.url : (draft.logo ?? undefined)

  return (
    <form onSubmit={submit} className="event-form">
      <Section title="The event">
        <Field label="Name">
          {(props) => (
            <input
              {...props}
              required
              maxLength={200}
              value={draft.name}
              onChange={(e) => {
                set('name', e.target.value)
                if (!slugEdited) set('slug', slugOf(e.target.value))
              }}
            />
          )}
        </Field>
        <Field
          label="Web address"
          hint={`Lowercase words joined by hyphens; in the kiosk’s and the event page’s addresses: /g/events/${draft.slug || 'summer-gala'}`}
        >
          {(props) => (
            <input
              {...props}
              required
              pattern="[a-z0-9]+(-[a-z0-9]+)*"
              maxLength={100}
              value={draft.slug}
              onChange={(e) => {
                setSlugEdited(true)
                set('slug', e.target.value)
              }}
            />
          )}
        </Field>
        <Field label="Starts">
          {(props) => (
            <input {...props} type="datetime-local" required value={draft.startAt} onChange={(e) => set('startAt', e.target.value)} />
          )}
        </Field>
        <Check
          label="Private event"
          hint="No public event page. Each guest’s gallery still works from their own link."
          checked={draft.isPrivate}
          onChange={(value) => set('isPrivate', value)}
        />
        <Check
          label="List guests on the event page unless they ask not to be"
          checked={draft.listGuestsByDefault}
          onChange={(value) => set('listGuestsByDefault', value)}
        />
      </Section>

      <Section title="Guests and their data">
        <Field label="Phone country" hint="Two letters (US, IT, GB): phones typed without a country code are read as from here. Empty: US.">
          {(props) => (
            <input
              {...props}
              maxLength={2}
              pattern="[A-Z]{2}"
              autoCapitalize="characters"
              value={draft.phoneCountry}
              onChange={(e) => set('phoneCountry', e.target.value.toUpperCase())}
            />
          )}
        </Field>
        <Field label="Privacy notice version" hint="Recorded with each guest who registers under it. Empty: no notice.">
          {(props) => (
            <input {...props} maxLength={40} value={draft.noticeVersion} onChange={(e) => set('noticeVersion', e.target.value)} />
          )}
        </Field>
        {draft.noticeVersion.trim() && (
          <>
            <Field label="Privacy notice link">
              {(props) => (
                <input
                  {...props}
                  type="url"
                  placeholder="https://"
                  value={draft.noticeUrl}
                  onChange={(e) => set('noticeUrl', e.target.value)}
                />
              )}
            </Field>
            <Field label="Privacy notice text" hint="Shown on the kiosk. A link or a text (or both) is needed.">
              {(props) => (
                <textarea
                  {...props}
                  rows={4}
                  maxLength={4000}
                  value={draft.noticeText}
                  onChange={(e) => set('noticeText', e.target.value)}
                />
              )}
            </Field>
          </>
        )}
        {owner && (
          <Field
            label="Keep guests’ data for (days after the start)"
            hint="Then photos, contacts and sessions are deleted. Empty: the service’s default."
          >
            {(props) => (
              <input
                {...props}
                type="number"
                min={1}
                max={3650}
                inputMode="numeric"
                value={draft.retentionDays}
                onChange={(e) => set('retentionDays', e.target.value)}
              />
            )}
          </Field>
        )}
      </Section>

      <Section title="Kiosk">
        <Field label="Language">
          {(props) => (
            <select {...props} value={draft.language} onChange={(e) => set('language', e.target.value as Language)}>
              {Object.entries(LANGUAGES).map(([code, name]) => (
                <option key={code} value={code}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Clear the screen after (seconds untouched)" hint="15 to 600. Empty: 60.">
          {(props) => (
            <input
              {...props}
              type="number"
              min={15}
              max={600}
              inputMode="numeric"
              value={draft.kioskIdleSeconds}
              onChange={(e) => set('kioskIdleSeconds', e.target.value)}
            />
          )}
        </Field>
      </Section>

      <Section title="Branding" wide>
        <div className="branding">
          <div>
            <Field label="Business name">
              {(props) => (
                <input {...props} maxLength={80} value={draft.businessName} onChange={(e) => set('businessName', e.target.value)} />
              )}
            </Field>
            <Field label="Business website">
              {(props) => (
                <input
                  {...props}
                  type="url"
                  placeholder="https://"
                  value={draft.businessUrl}
                  onChange={(e) => set('businessUrl', e.target.value)}
                />
              )}
            </Field>
            <Field label="Tagline" hint="A line under the event’s name: “Thanks for celebrating with us!”">
              {(props) => <input {...props} maxLength={120} value={draft.tagline} onChange={(e) => set('tagline', e.target.value)} />}
            </Field>
            <div className="row">
              <Field label="Accent colour" className="colour">
                {(props) => (
                  <input
                    {...props}
                    type="color"
                    value={draft.accentColor || '#5b47d6'}
                    onChange={(e) => set('accentColor', e.target.value)}
                  />
                )}
              </Field>
              {draft.accentColor && (
                <Button kind="quiet" onClick={() => set('accentColor', '')}>
                  No colour
                </Button>
              )}
            </div>
            <Field label="Logo" hint="A PNG, JPEG or WebP of at most 48 KB; shown at most 800×240.">
              {(props) => <input {...props} type="file" accept={LOGO_TYPES.join(',')} onChange={(e) => readLogo(e.target.files?.[0])} />}
            </Field>
            {logoProblem && (
              <p className="field-error" role="alert">
                {logoProblem}
              </p>
            )}
            {logoShown && (
              <Button kind="quiet" onClick={() => set('logo', null)}>
                Remove the logo
              </Button>
            )}
          </div>
          <Preview draft={draft} logo={logoShown} />
        </div>
      </Section>

      <ErrorNote error={error} />
      <div className="form-actions">
        <Button kind="primary" type="submit" busy={busy}>
          {submitLabel}
        </Button>
      </div>
    </form>
  )
}

/** What guests see, roughly: the gallery's header and its button in the accent colour. */
function Preview({ draft, logo }: { draft: Draft; logo: string | undefined }) {
  const accent = draft.accentColor || '#5b47d6'
  return (
    <figure className="preview" aria-label="Preview of a guest’s gallery">
      <div className="preview-page">
        {logo && <img src={logo} alt={draft.businessName || 'Logo'} className="preview-logo" />}
        <p className="preview-title">{draft.name || 'Your event'}</p>
        {draft.tagline && <p className="preview-tagline">{draft.tagline}</p>}
        <div className="preview-photos" aria-hidden="true">
          <span />
          <span />
          <span />
          <span />
        </div>
        <span className="preview-button" style={{ background: accent, color: readableOn(accent) }}>
          Download all
        </span>
        {draft.businessName && <p className="preview-footer">Photos by {draft.businessName}</p>}
      </div>
      <figcaption>Preview</figcaption>
    </figure>
  )
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
function readableOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
  return (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#111' : '#fff'
}

function Section({ title, children, wide = false }: { title: string; children: ReactNode; wide?: boolean }) {
  return (
    <fieldset className={`card section${wide ? ' wide' : ''}`}>
      <legend>{title}</legend>
      {children}
    </fieldset>
  )
}

function Check({ label, hint, checked, onChange }: { label: string; hint?: string; checked: boolean; onChange: (value: boolean) => void }) {
  return (
    <label className="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <span>
        {label}
        {hint && <small>{hint}</small>}
      </span>
    </label>
  )
}
