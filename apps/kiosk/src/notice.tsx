import { useEffect, useRef, useState } from 'preact/hooks'

import type { KioskContext } from './context-cache.js'
import type { Language, TEXTS } from './texts.js'

type Notice = NonNullable<KioskContext['event']['privacyNotice']>

/**
 * The event's privacy notice, inside the kiosk: its text, and its link as a QR code to read on the
 * guest's own phone. The kiosk never opens the link itself: a tablet pinned to the kiosk must not
 * wander off to another site.
 */
export function NoticeDialog({ notice, texts, onClose }: { notice: Notice; texts: (typeof TEXTS)[Language]; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [qr, setQr] = useState<{ path: string; size: number }>()
  useEffect(() => {
    dialog.current?.showModal()
    if (notice.url) void import('uqr').then(({ encode }) => setQr(pathOf(encode(notice.url!, { ecc: 'M', border: 2 }).data)))
  }, [notice.url])
  return (
    <dialog ref={dialog} class="notice-dialog" aria-labelledby="notice-title" onClose={onClose}>
      <h2 id="notice-title">{texts.noticeTitle}</h2>
      <div class="notice-body">
        {notice.text && <p class="notice-text">{notice.text}</p>}
        {notice.url && (
          <figure class="notice-qr">
            <svg viewBox={`0 0 ${qr?.size ?? 1} ${qr?.size ?? 1}`} width="220" height="220" role="img" aria-label={texts.noticeScan}>
              {qr && <path d={qr.path} fill="currentColor" shape-rendering="crispEdges" />}
            </svg>
            <figcaption>
              {texts.noticeScan}
              <span class="notice-url">{notice.url}</span>
            </figcaption>
          </figure>
        )}
        <p class="notice-version">{texts.noticeVersion(notice.version)}</p>
      </div>
      <div class="dialog-buttons">
        <button type="button" class="button primary" onClick={() => dialog.current?.close()}>
          {texts.close}
        </button>
      </div>
    </dialog>
  )
}

/** The dark modules of a QR code as one SVG path. */
function pathOf(modules: boolean[][]): { path: string; size: number } {
  const parts: string[] = []
  modules.forEach((row, y) => row.forEach((dark, x) => dark && parts.push(`M${x} ${y}h1v1h-1z`)))
  return { path: parts.join(''), size: modules.length }
}
