import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'

import type { KioskContext } from './context-cache.js'
import type { queue as kioskQueue } from './guest-flow.js'
import { LANGUAGES, type Language, type TEXTS } from './texts.js'

type Texts = (typeof TEXTS)[Language]

export function LanguageSwitch({ language, onChange, label }: { language: Language; onChange: (to: Language) => void; label: string }) {
  return (
    <div class="languages" role="group" aria-label={label}>
      {LANGUAGES.map(({ code, name }) => (
        <button type="button" key={code} lang={code} class="language" aria-pressed={code === language} onClick={() => onChange(code)}>
          {name}
        </button>
      ))}
    </div>
  )
}

/** The screen between groups: the event, the set, and one button. Nothing of any guest. */
export function Welcome({ context: { event, set }, texts, onStart }: { context: KioskContext; texts: Texts; onStart: () => void }) {
  // Its handlers are attached from here, once painted it can be used: the mark the benchmark reads
  // with the first contentful paint (bench/kiosk-app.bench.ts).
  useLayoutEffect(() => {
    if (performance.getEntriesByName('kiosk-interactive').length === 0) performance.mark('kiosk-interactive')
  }, [])
  return (
    <main class="welcome">
      <div class="badge" aria-hidden="true">
        <svg viewBox="0 0 24 24" width="56" height="56" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round">
          <path d="M4 8.5h3l1.6-2.5h6.8L17 8.5h3a1 1 0 0 1 1 1V18a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V9.5a1 1 0 0 1 1-1z" />
          <circle cx="12" cy="13.3" r="3.6" />
        </svg>
      </div>
      <h1 class="event-name">{event.name}</h1>
      <p class="set-name">{set.name}</p>
      {event.branding?.tagline && <p class="tagline">{event.branding.tagline}</p>}
      <p class="invite">{texts.welcome}</p>
      <button type="button" class="button primary huge" onClick={onStart}>
        {texts.start}
      </button>
    </main>
  )
}

type DoneProps = { texts: Texts; language: Language; names: string[]; contacts: string[]; queued: boolean; onNext: () => void }

/** The group's confirmation: where their photos go. It clears itself (app.tsx) or on "Next group". */
export function Done({ texts, language, names, contacts, queued, onNext }: DoneProps) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <main class="done">
      <div class="tick" aria-hidden="true">
        <svg viewBox="0 0 24 24" width="72" height="72">
          <path
            d="M5 12.5l4.5 4.5L19 7.5"
            fill="none"
            stroke="currentColor"
            stroke-width="2.5"
            stroke-linecap="round"
            stroke-linejoin="round"
          />
        </svg>
      </div>
      <h1 tabIndex={-1} ref={heading}>
        {texts.thanks(new Intl.ListFormat(language, { type: 'conjunction' }).format(names))}
      </h1>
      <p>{texts.sentTo}</p>
      <ul class="contacts">
        {contacts.map((contact, index) => (
          <li key={index}>{contact}</li>
        ))}
      </ul>
      {queued && <p class="queued">{texts.queuedNote}</p>}
      <button type="button" class="button primary" onClick={onNext}>
        {texts.nextGroup}
      </button>
    </main>
  )
}

/** A line for staff: online or not, and how many groups wait in the queue; it never blocks a guest. */
export function StatusLine({ queue, texts }: { queue: typeof kioskQueue | undefined; texts: Texts }) {
  const [online, setOnline] = useState(navigator.onLine)
  const [waiting, setWaiting] = useState(0)
  const [refused, setRefused] = useState(0)
  useEffect(() => {
    const update = () => setOnline(navigator.onLine)
    addEventListener('online', update)
    addEventListener('offline', update)
    return () => {
      removeEventListener('online', update)
      removeEventListener('offline', update)
    }
  }, [])
  // The queue arrives a moment after the first screen (guest-flow.ts).
  useEffect(() => {
    if (!queue) return
    const count = ({ count }: { count: number }) => setWaiting(count)
    const stops = [
      queue.on('queued', count),
      queue.on('sent', count),
      queue.on('waiting', count),
      queue.on('failed', (event) => {
        setRefused((n) => n + 1)
        count(event)
      }),
    ]
    void queue.ready.then(() => setWaiting(queue.count))
    return () => stops.forEach((stop) => stop())
  }, [queue])
  const parts = [online ? texts.online : texts.offline]
  if (waiting > 0) parts.push(texts.waiting(waiting))
  if (refused > 0) parts.push(texts.refused(refused))
  return (
    <footer class="status">
      <p role="status" class={online ? 'online' : 'offline'}>
        <span class="dot" aria-hidden="true" />
        {parts.join(' · ')}
      </p>
    </footer>
  )
}
