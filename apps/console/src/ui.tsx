/** The console's small building blocks: buttons, fields, alerts, dialogs, lists that page, QR codes. */
import { encode } from 'uqr'
import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ReactNode } from 'react'

import type { ErrorCode } from '@photobooth/sdk/staff'

import { errorText } from './errors.js'

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { kind?: 'primary' | 'secondary' | 'danger' | 'quiet'; busy?: boolean }

/** A button that says when it is working (and cannot be pressed twice meanwhile). */
export function Button({ kind = 'secondary', busy = false, children, className, disabled, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      {...rest}
      className={`button ${kind}${className ? ` ${className}` : ''}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  )
}

/** A failure in words (errors.ts), read out by screen readers as it appears. */
export function ErrorNote({
  error,
  words,
  children,
}: {
  error: unknown
  /** This screen's own words for some codes (a 401 at sign-in is a wrong password, not a lost session). */
  words?: Partial<Record<ErrorCode, string>>
  children?: ReactNode
}) {
  if (!error) return null
  return (
    <div className="note error" role="alert">
      <strong>{errorText(error, words)}</strong>
      {children}
    </div>
  )
}

export function Note({ kind = 'info', children }: { kind?: 'info' | 'success' | 'warning'; children: ReactNode }) {
  return (
    <div className={`note ${kind}`} role="status">
      {children}
    </div>
  )
}

/** Shown while a first answer is awaited, so that no screen is ever blank. */
export function Loading({ what }: { what: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      Loading {what}…
    </div>
  )
}

/** A query's states in one place: its first load, its failure with a way to try again, then its data. */
export function Loaded<T>({
  query,
  what,
  children,
}: {
  query: { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown; isFetching: boolean }
  what: string
  children: (data: T) => ReactNode
}) {
  if (query.data !== undefined) return <>{children(query.data)}</>
  if (query.error)
    return (
      <ErrorNote error={query.error}>
        <Button onClick={() => void query.refetch()} busy={query.isFetching}>
          Try again
        </Button>
      </ErrorNote>
    )
  return <Loading what={what} />
}

type FieldProps = {
  label: string
  hint?: ReactNode
  children: (props: { id: string; 'aria-describedby'?: string }) => ReactNode
  className?: string
}

/** A label, its control and a hint tied to it for screen readers. */
export function Field({ label, hint, children, className }: FieldProps) {
  const id = useId()
  const hintId = `${id}-hint`
  return (
    <div className={`field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(hint ? { 'aria-describedby': hintId } : {}) })}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  )
}

/**
 * A confirmation in a modal `<dialog>` (focus kept inside, Escape closes): what will go, in words,
 * and the one button that does it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirm,
  onConfirm,
  onClose,
  busy,
  error,
}: {
  open: boolean
  title: string
  children: ReactNode
  confirm: string
  onConfirm: () => void
  onClose: () => void
  busy?: boolean
  error?: unknown
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} className="dialog">
      {open && (
        <>
          <h2 id={titleId}>{title}</h2>
          <div className="dialog-body">{children}</div>
          <ErrorNote error={error} />
          <div className="actions">
            <Button onClick={onClose}>Keep it</Button>
            <Button kind="danger" onClick={onConfirm} busy={busy}>
              {confirm}
            </Button>
          </div>
        </>
      )}
    </dialog>
  )
}

/** A button that copies `text`, and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), 2_000)
    return () => clearTimeout(timer)
  }, [copied])
  return (
    <Button kind="quiet" onClick={() => void navigator.clipboard.writeText(text).then(() => setCopied(true))} aria-live="polite">
      {copied ? 'Copied' : label}
    </Button>
  )
}

/** A QR code drawn here (uqr, SVG, no network): one path of the dark modules. */
export function QrCode({ text, label, size = 160 }: { text: string; label: string; size?: number }) {
  const { data, size: modules } = encode(text, { border: 2, ecc: 'M' })
  let path = ''
  data.forEach((row, y) => row.forEach((dark, x) => dark && (path += `M${x} ${y}h1v1h-1z`)))
  return (
    <svg
      className="qr"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${modules} ${modules}`}
      width={size}
      height={size}
      shapeRendering="crispEdges"
    >
      <rect width={modules} height={modules} fill="#fff" />
      <path d={path} fill="#111" />
    </svg>
  )
}

/** "Load more" for a list paged with the API's cursors. */
export function MorePages({
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
  what,
}: {
  hasNextPage: boolean
  isFetchingNextPage: boolean
  fetchNextPage: () => unknown
  what: string
}) {
  if (!hasNextPage) return null
  return (
    <div className="more">
      <Button onClick={() => void fetchNextPage()} busy={isFetchingNextPage}>
        Load more {what}
      </Button>
    </div>
  )
}

export function Badge({
  tone = 'neutral',
  children,
}: {
  tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'info' | 'accent'
  children: ReactNode
}) {
  return <span className={`badge ${tone}`}>{children}</span>
}

export function PageHeader({ title, lead, actions }: { title: ReactNode; lead?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {lead && <p className="lead">{lead}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </div>
  )
}

/** A password field: the browser's password manager is told which it is (`current-password`, `new-password`). */
export function PasswordField({
  label,
  hint,
  autoComplete,
  value,
  onChange,
  isNew = false,
  invalid = false,
}: {
  label: string
  hint?: string
  autoComplete: 'current-password' | 'new-password'
  value: string
  onChange: (value: string) => void
  /** A new password: the service's bounds (12 to 128 characters). */
  isNew?: boolean
  invalid?: boolean
}) {
  return (
    <Field label={label} hint={hint}>
      {(props) => (
        <input
          {...props}
          type="password"
          autoComplete={autoComplete}
          required
          {...(isNew ? { minLength: 12, maxLength: 128 } : {})}
          aria-invalid={invalid || undefined}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  )
}

type ContactQuery = { email: string } | { phone: string }

/** Find by email or by phone, the one field the API takes (people, opt-outs). */
export function ContactSearch({
  title,
  labels,
  action,
  busy,
  onSearch,
}: {
  title: string
  labels: { email: string; phone: string }
  action: string
  busy: boolean
  onSearch: (query: ContactQuery) => void
}) {
  const [by, setBy] = useState<'email' | 'phone'>('email')
  const [value, setValue] = useState('')
  const titleId = useId()
  return (
    <form
      className="card search"
      aria-labelledby={titleId}
      onSubmit={(event) => {
        event.preventDefault()
        onSearch(by === 'email' ? { email: value.trim() } : { phone: value.trim() })
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <fieldset className="segmented">
        <legend className="visually-hidden">Search by</legend>
        {(['email', 'phone'] as const).map((option) => (
          <label key={option}>
            <input type="radio" name={`${titleId}-by`} value={option} checked={by === option} onChange={() => setBy(option)} />
            <span>{option === 'email' ? 'Email' : 'Phone'}</span>
          </label>
        ))}
      </fieldset>
      <div className="inline-form">
        <Field label={labels[by]}>
          {(props) => (
            <input
              {...props}
              type={by === 'email' ? 'email' : 'tel'}
              required
              minLength={3}
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
          )}
        </Field>
        <Button kind="primary" type="submit" busy={busy}>
          {action}
        </Button>
      </div>
    </form>
  )
}
