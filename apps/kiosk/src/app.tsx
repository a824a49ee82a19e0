import { errorCodeOf, safe } from '@photobooth/sdk/kiosk'
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'

import { client } from './client.js'
import { paletteOf } from './colors.js'
import { cacheContext, readCachedContext, type KioskContext } from './context-cache.js'
import type { FieldError, GuestDraft } from './fields.js'
import type * as GuestFlowModule from './guest-flow.js'
import { updateWaiting } from './service-worker.js'
import { Done, LanguageSwitch, StatusLine, Welcome } from './screens.js'
import { isLanguage, TEXTS, type Language } from './texts.js'

type GuestFlow = typeof GuestFlowModule
let guestFlow: Promise<GuestFlow> | undefined
/** The form, the notice and the queue: fetched once the first screen is up (guest-flow.ts). */
const loadGuestFlow = () => (guestFlow ??= import('./guest-flow.js'))

const DEFAULT_IDLE_SECONDS = 60
/** The confirmation stays this long, or until the group taps "Next group". */
const CONFIRMATION_SECONDS = 12
/** Without a context (a first start with the service away), it is asked for again this often. */
const CONTEXT_RETRY_MS = 10_000

type Screen = { kind: 'welcome' } | { kind: 'form' } | { kind: 'done'; names: string[]; contacts: string[]; queued: boolean }
type Problem = 'notAKioskAddress' | 'noSuchKiosk' | 'unreachable'

/** Before there is a context to show: a message for staff, in the browser's language where the kiosk has it. */
export function KioskProblem({ problem, onRetry }: { problem: Problem | 'loading'; onRetry?: () => void }) {
  const browserLanguage = navigator.language.slice(0, 2)
  const texts = TEXTS[isLanguage(browserLanguage) ? browserLanguage : 'en']
  return (
    <main class="problem">
      <p role={problem === 'loading' ? 'status' : 'alert'}>{texts[problem]}</p>
      {onRetry && (
        <button type="button" class="button primary" onClick={onRetry}>
          {texts.retry}
        </button>
      )}
    </main>
  )
}

/** What asking for the kiosk's context gave: the context (kept for offline starts), or why not. */
export type Reading = { context: KioskContext } | { problem: 'noSuchKiosk' | 'unreachable' }

export async function readContext(eventSlug: string, setSlug: string): Promise<Reading> {
  const [error, context] = await safe(client.kiosk.getContext({ eventSlug, setSlug }))
  if (context) {
    cacheContext(eventSlug, setSlug, context)
    return { context }
  }
  if (errorCodeOf(error) !== 'no_such_set') return { problem: 'unreachable' }
  cacheContext(eventSlug, setSlug, undefined)
  return { problem: 'noSuchKiosk' }
}

type KioskProps = { eventSlug: string; setSlug: string; first: Promise<Reading>; initial: Reading | undefined }

export function Kiosk({ eventSlug, setSlug, first, initial }: KioskProps) {
  const [context, setContext] = useState<KioskContext | undefined>(() =>
    initial && 'context' in initial ? initial.context : readCachedContext(eventSlug, setSlug),
  )
  const [problem, setProblem] = useState<Problem | undefined>(initial && 'problem' in initial ? initial.problem : undefined)
  /** A context fetched while a group is at the kiosk waits for the next group: they registered under the notice they saw. */
  const pending = useRef<KioskContext | undefined>(undefined)
  const busy = useRef(false)

  const apply = useCallback((reading: Reading) => {
    if ('context' in reading) {
      setProblem(undefined)
      if (busy.current) pending.current = reading.context
      else setContext(reading.context)
    } else {
      // The service is away: the kept context (if any) goes on serving. A set that is gone is gone.
      if (reading.problem === 'noSuchKiosk') setContext(undefined)
      setProblem(reading.problem)
    }
  }, [])
  const refresh = useCallback(() => void readContext(eventSlug, setSlug).then(apply), [apply, eventSlug, setSlug])

  // The first answer was asked for before the first screen (main.tsx); again whenever the network
  // comes back: staff may have changed the event meanwhile.
  useEffect(() => {
    if (!initial) void first.then(apply)
    addEventListener('online', refresh)
    return () => removeEventListener('online', refresh)
  }, [first, initial, apply, refresh])
  // With nothing to show yet, ask again until the service answers.
  useEffect(() => {
    if (context || problem !== 'unreachable') return
    const timer = setInterval(refresh, CONTEXT_RETRY_MS)
    return () => clearInterval(timer)
  }, [context, problem, refresh])

  if (!context) {
    if (problem === 'noSuchKiosk') return <KioskProblem problem="noSuchKiosk" />
    if (problem === 'unreachable') return <KioskProblem problem="unreachable" onRetry={refresh} />
    return <KioskProblem problem="loading" />
  }
  const onReset = () => {
    if (pending.current) setContext(pending.current)
    pending.current = undefined
    refresh()
  }
  // Refused under a notice the event does not know: the current one is shown now, the group's typing kept.
  const onNoticeRefused = () => {
    busy.current = false
    refresh()
  }
  return <KioskScreens context={context} busy={busy} onReset={onReset} onNoticeRefused={onNoticeRefused} />
}

type ScreensProps = { context: KioskContext; busy: { current: boolean }; onReset: () => void; onNoticeRefused: () => void }

function KioskScreens({ context, busy, onReset, onNoticeRefused }: ScreensProps) {
  const { event, set } = context
  const defaultLanguage: Language = event.language ?? 'en'
  const [language, setLanguage] = useState<Language>(defaultLanguage)
  const [screen, setScreen] = useState<Screen>({ kind: 'welcome' })
  const [noticeOpen, setNoticeOpen] = useState(false)
  /** A new group, a new form: nothing typed by the last one survives in the DOM. */
  const [group, setGroup] = useState(1)
  const [flow, setFlow] = useState<GuestFlow>()
  const texts = TEXTS[language]
  const palette = useMemo(() => paletteOf(event.branding?.accentColor), [event.branding?.accentColor])
  busy.current = screen.kind !== 'welcome'

  useEffect(() => {
    document.documentElement.lang = language
  }, [language])
  useEffect(() => void loadGuestFlow().then(setFlow), [])

  const reset = useCallback(() => {
    // A newer build took over while guests were here: start it now that nobody is.
    if (updateWaiting()) return location.reload()
    setScreen({ kind: 'welcome' })
    setNoticeOpen(false)
    setLanguage(defaultLanguage)
    setGroup((n) => n + 1)
    ;(document.activeElement as HTMLElement | null)?.blur()
    // Nothing of the group in the page's history: one entry, without state.
    history.replaceState(null, '', location.pathname)
    scrollTo(0, 0)
    onReset()
  }, [defaultLanguage, onReset])

  // The idle reset: untouched for the event's time, the screen is cleared for the next group.
  const idleMs = (screen.kind === 'done' ? CONFIRMATION_SECONDS : (event.kioskIdleSeconds ?? DEFAULT_IDLE_SECONDS)) * 1000
  useEffect(() => {
    if (screen.kind === 'welcome') return
    let timer = setTimeout(reset, idleMs)
    const touched = () => {
      clearTimeout(timer)
      timer = setTimeout(reset, idleMs)
    }
    const events = ['pointerdown', 'keydown', 'input', 'scroll'] as const
    for (const type of events) addEventListener(type, touched, { capture: true, passive: true })
    return () => {
      clearTimeout(timer)
      for (const type of events) removeEventListener(type, touched, { capture: true })
    }
  }, [screen.kind, idleMs, reset])

  // A page restored from the back/forward cache shows no earlier group.
  useEffect(() => {
    const restored = (pageEvent: PageTransitionEvent) => pageEvent.persisted && reset()
    addEventListener('pageshow', restored)
    return () => removeEventListener('pageshow', restored)
  }, [reset])

  const register = async (guests: GuestDraft[]): Promise<FieldError[] | undefined> => {
    const notice = event.privacyNotice
    const body = {
      guests: guests.map((guest) => ({
        name: guest.name.trim(),
        ...(guest.email.trim() ? { email: guest.email.trim() } : {}),
        ...(guest.phone.trim() ? { phone: guest.phone.trim() } : {}),
        marketingOptIn: guest.marketingOptIn,
        // The kiosk asks (the box shows the event's rule until the guest changes it): its state is the guest's answer.
        hideFromEventPage: !guest.listed,
      })),
      ...(notice ? { privacyNoticeVersion: notice.version } : {}),
    }
    const { queue, fieldErrorsOf } = await loadGuestFlow()
    const [error, outcome] = await safe(queue.registerGuests({ params: { setId: set.id }, body }))
    if (error || !outcome) {
      const errors = fieldErrorsOf(error, guests) ?? [{ field: 'form', code: 'unknown' }]
      // The notice changed since this screen showed it: show the new one before the group sends again.
      if (errors.some((e) => e.code === 'unknown_privacy_notice')) onNoticeRefused()
      return errors
    }
    setScreen({
      kind: 'done',
      names: guests.map((guest) => guest.name.trim().split(/\s+/)[0]!),
      contacts: guests.map((guest) => guest.email.trim() || guest.phone.trim()),
      queued: outcome.status === 'queued',
    })
    return undefined
  }

  const branding = event.branding
  return (
    <div
      class={`kiosk screen-${screen.kind}`}
      style={{ '--accent': palette.accent, '--on-accent': palette.onAccent, '--accent-ink': palette.accentOnWhite }}
    >
      <header class="topbar">
        {(branding?.logo || branding?.businessName) && (
          <div class="brand">
            {branding.logo ? (
              <img src={branding.logo.url} width={branding.logo.width} height={branding.logo.height} alt={branding.businessName ?? ''} />
            ) : (
              <span class="business">{branding.businessName}</span>
            )}
          </div>
        )}
        {screen.kind !== 'welcome' && (
          <p class="where">
            <span class="event">{event.name}</span> <span class="set">{set.name}</span>
          </p>
        )}
        <LanguageSwitch language={language} onChange={setLanguage} label={texts.languageSwitch} />
      </header>
      {screen.kind === 'welcome' && (
        <Welcome context={context} texts={texts} onStart={() => void loadGuestFlow().then(() => setScreen({ kind: 'form' }))} />
      )}
      {screen.kind === 'form' && flow && (
        <flow.GuestForm
          key={group}
          context={context}
          texts={texts}
          language={language}
          onSubmit={register}
          onCancel={reset}
          onOpenNotice={() => setNoticeOpen(true)}
        />
      )}
      {screen.kind === 'done' && <Done texts={texts} language={language} {...screen} onNext={reset} />}
      {noticeOpen && flow && event.privacyNotice && (
        <flow.NoticeDialog notice={event.privacyNotice} texts={texts} onClose={() => setNoticeOpen(false)} />
      )}
      <StatusLine queue={flow?.queue} texts={texts} />
    </div>
  )
}
