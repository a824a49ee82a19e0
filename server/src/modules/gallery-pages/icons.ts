/**
 * The pages' icons, inline (no request, no font), drawn in the text's colour. Each sits beside a
 * name a screen reader reads (a visible label or the control's aria-label), so it is hidden from them.
 */
const icon = (paths: string) =>
  `<svg class="icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">${paths}</svg>`

export const ICONS = {
  share: icon('<path d="M12 15V3m-5 5 5-5 5 5"/><path d="M5 11v8a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-8"/>'),
  download: icon('<path d="M12 3v12m-5-5 5 5 5-5"/><path d="M5 20h14"/>'),
  save: icon('<rect x="3" y="3" width="18" height="18" rx="3"/><circle cx="8.5" cy="8.5" r="1.5"/><path d="m21 15-5-5L5 21"/>'),
  facebook: icon(
    '<path class="filled" d="M14 8.5V7c0-.8.5-1.2 1.2-1.2H17V2.3C16.6 2.2 15.4 2 14.1 2 11.3 2 9.6 3.7 9.6 6.8v1.7H6.7V12h2.9v10H14V12h2.8l.5-3.5H14z"/>',
  ),
  close: icon('<path d="M6 6l12 12M18 6 6 18"/>'),
  previous: icon('<path d="m15 18-6-6 6-6"/>'),
  next: icon('<path d="m9 18 6-6-6-6"/>'),
  photo: icon('<rect x="3" y="5" width="18" height="14" rx="2"/><circle cx="12" cy="12" r="3.5"/><path d="M8 5l1.5-2h5L16 5"/>'),
}
