import { useEffect, useMemo, useRef, useState } from 'preact/hooks'

import type { KioskContext } from './context-cache.js'
import { checkGuests, messageOf, type FieldError, type GuestDraft } from './fields.js'
import type { Language, TEXTS } from './texts.js'

type Texts = (typeof TEXTS)[Language]

const MAX_GUESTS = 12

/** The phone helpers: most of the kiosk's bytes, fetched once the first screen is up (phone.ts). */
const phoneHelpers = import('./phone.js')

type FormProps = {
  context: KioskContext
  texts: Texts
  language: Language
  /** Sends or queues the group; answers the refusals to show, or nothing once the group is registered. */
  onSubmit: (guests: GuestDraft[]) => Promise<FieldError[] | undefined>
  onCancel: () => void
  onOpenNotice: () => void
}

/**
 * One group's form: one to twelve guests, each a name and an email or a mobile, and their consent.
 * Its fields' names are new for every group and autofill is off, so that the browser offers no
 * earlier guest's address; the form is never submitted as a page, so nothing lands in history.
 */
export function GuestForm({ context: { event }, texts, language, onSubmit, onCancel, onOpenNotice }: FormProps) {
  const blank = (): GuestDraft => ({ name: '', email: '', phone: '', marketingOptIn: false, listed: event.listGuestsByDefault })
  const [guests, setGuests] = useState<GuestDraft[]>(() => [blank()])
  const [errors, setErrors] = useState<FieldError[]>([])
  const [sending, setSending] = useState(false)
  const [phone, setPhone] = useState<Awaited<typeof phoneHelpers>>()
  const formId = useMemo(() => `g${crypto.getRandomValues(new Uint32Array(2)).join('')}`, [])
  const form = useRef<HTMLFormElement>(null)
  const country = event.phoneCountry

  useEffect(() => {
    void phoneHelpers.then(setPhone)
    form.current?.querySelector('input')?.focus()
  }, [])

  const idOf = (field: string) => `${formId}-${field.replace(/\./g, '-')}`
  const errorAt = (field: string) => errors.find((error) => error.field === field)
  const change = (index: number, changes: Partial<GuestDraft>) => {
    setGuests((all) => all.map((guest, i) => (i === index ? { ...guest, ...changes } : guest)))
    const touched = Object.keys(changes).map((key) => `guests.${index}.${key}`)
    // Typing a contact answers "needs an email or a phone" too.
    if ('email' in changes || 'phone' in changes) touched.push(`guests.${index}`)
    setErrors((all) => all.filter((error) => !touched.includes(error.field)))
  }
  const show = (found: FieldError[]) => {
    setErrors(found)
    // After the render: the first field to fix gets the focus (and the screen reader its message).
    requestAnimationFrame(() => {
      const first = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')
      first?.focus()
    })
  }

  const submit = async (submitEvent: Event) => {
    submitEvent.preventDefault()
    if (sending) return
    const helpers = phone ?? (await phoneHelpers)
    const found = checkGuests(guests, (input) => helpers.isPossiblePhone(input, country))
    if (found.length > 0) return show(found)
    setSending(true)
    const refused = await onSubmit(guests)
    if (!refused) return
    setSending(false)
    show(refused)
  }

  const formError = errors.find((error) => error.field === 'form')
  const noticeError = errorAt('privacyNoticeVersion')
  const fieldCount = errors.filter((error) => error.field !== 'form').length
  return (
    <main class="register">
      <form ref={form} onSubmit={(e) => void submit(e)} autocomplete="off" noValidate aria-labelledby={`${formId}-title`}>
        <h1 id={`${formId}-title`}>{texts.formTitle}</h1>
        <div class="form-alert" role="alert">
          {formError ? messageOf(formError, texts, language) : fieldCount > 0 ? texts.fixFields(fieldCount) : ''}
        </div>
        <ol class="guests">
          {guests.map((guest, index) => {
            const contactError = errorAt(`guests.${index}`)
            const contactErrorId = idOf(`guests.${index}.contact-error`)
            const field = (name: 'name' | 'email' | 'phone', label: string, attributes: Record<string, string>) => {
              const error = errorAt(`guests.${index}.${name}`)
              const id = idOf(`guests.${index}.${name}`)
              const invalid = error !== undefined || (name !== 'name' && contactError !== undefined)
              const describedBy = [error && `${id}-error`, name !== 'name' && contactErrorId].filter(Boolean).join(' ')
              return (
                <div class="field">
                  <label for={id}>{label}</label>
                  <input
                    id={id}
                    name={id}
                    value={guest[name]}
                    autocomplete="off"
                    spellcheck={false}
                    aria-invalid={invalid ? 'true' : undefined}
                    aria-describedby={describedBy || undefined}
                    onInput={(inputEvent) => {
                      const input = inputEvent.currentTarget
                      const deleting = (inputEvent as InputEvent).inputType?.startsWith('delete')
                      // As typed, in the event's country's format; a deletion is left as it is, so that a
                      // bracket or a space can be deleted too.
                      const value = name === 'phone' && phone && !deleting ? phone.formatPhone(input.value, country) : input.value
                      if (value !== input.value) input.value = value
                      change(index, { [name]: value })
                    }}
                    {...attributes}
                  />
                  <p id={`${id}-error`} class="field-error">
                    {error ? messageOf(error, texts, language) : ''}
                  </p>
                </div>
              )
            }
            return (
              <li class="guest" key={index}>
                <div class="guest-head">
                  <h2>{texts.guest(index + 1)}</h2>
                  {guests.length > 1 && (
                    <button
                      type="button"
                      class="button ghost small"
                      onClick={() => {
                        setGuests((all) => all.filter((_, i) => i !== index))
                        setErrors([])
                      }}
                    >
                      {texts.removeGuest(index + 1)}
                    </button>
                  )}
                </div>
                <div class="guest-fields">
                  {field('name', texts.name, { type: 'text', autocapitalize: 'words', enterkeyhint: 'next' })}
                  {field('email', texts.email, { type: 'email', inputmode: 'email', autocapitalize: 'off', enterkeyhint: 'next' })}
                  {field('phone', texts.phone, { type: 'tel', inputmode: 'tel', enterkeyhint: 'next' })}
                </div>
                <p id={contactErrorId} class={contactError ? 'hint field-error' : 'hint'}>
                  {contactError ? messageOf(contactError, texts, language) : texts.contactHint}
                </p>
                <div class="checks">
                  {(['marketingOptIn', 'listed'] as const).map((choice) => (
                    <label class="check" key={choice}>
                      <input
                        type="checkbox"
                        name={idOf(`guests.${index}.${choice}`)}
                        checked={guest[choice]}
                        onChange={(e) => change(index, { [choice]: e.currentTarget.checked })}
                      />
                      <span>{choice === 'listed' ? texts.listed : texts.marketing(event.branding?.businessName)}</span>
                    </label>
                  ))}
                </div>
              </li>
            )
          })}
        </ol>
        {guests.length < MAX_GUESTS && (
          <button type="button" class="button secondary add" onClick={() => setGuests((all) => [...all, blank()])}>
            <span aria-hidden="true">+ </span>
            {texts.addGuest}
          </button>
        )}
        <div class="actions">
          <div class="notice">
            <p>{texts.noticeLine}</p>
            {event.privacyNotice && (
              <button
                type="button"
                class="button link"
                onClick={onOpenNotice}
                aria-describedby={noticeError ? `${formId}-notice-error` : undefined}
              >
                {texts.readNotice}
              </button>
            )}
            <p id={`${formId}-notice-error`} class="field-error">
              {noticeError ? messageOf(noticeError, texts, language) : ''}
            </p>
          </div>
          <div class="buttons">
            <button type="button" class="button ghost" onClick={onCancel}>
              {texts.cancel}
            </button>
            <button type="submit" class="button primary" disabled={sending} aria-describedby={`${formId}-count`}>
              {sending ? texts.sending : texts.submit}
            </button>
          </div>
          <span id={`${formId}-count`} class="sr-only">
            {texts.guestsCount(guests.length)}
          </span>
        </div>
      </form>
    </main>
  )
}
