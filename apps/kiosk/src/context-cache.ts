import type { KioskClient } from '@photobooth/sdk/kiosk'

/** What the kiosk context route answers: the set, and the event with its consent rules, notice and branding. */
export type KioskContext = Awaited<ReturnType<KioskClient['kiosk']['getContext']>>

/**
 * The context is kept on the tablet once fetched, so that the kiosk starts with the venue's network
 * gone (a reload, a restart). It holds the event's and set's details only, never a guest's.
 */
const keyOf = (eventSlug: string, setSlug: string) => `photobooth-kiosk:context:${eventSlug}/${setSlug}`

export function readCachedContext(eventSlug: string, setSlug: string): KioskContext | undefined {
  try {
    const text = localStorage.getItem(keyOf(eventSlug, setSlug))
    return text ? (JSON.parse(text) as KioskContext) : undefined
  } catch {
    return undefined
  }
}

export function cacheContext(eventSlug: string, setSlug: string, context: KioskContext | undefined): void {
  try {
    if (context) localStorage.setItem(keyOf(eventSlug, setSlug), JSON.stringify(context))
    else localStorage.removeItem(keyOf(eventSlug, setSlug))
  } catch {
    // Storage full or refused (a private window): the kiosk still works while online.
  }
}
