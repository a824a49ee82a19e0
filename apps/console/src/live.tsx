/**
 * The event as it happens: sessions as kiosks register them and booths complete them, each guest's
 * gallery-link messages and their delivery, updating on their own (the API's pages asked again
 * every few seconds while the tab is shown), with what staff do at the event: send a link again,
 * retry what failed, cancel, delete.
 */
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'

import { api, type StaffEvent, type StaffMember, type StaffMessage, type StaffSession } from './api.js'
import { formatAgo, formatNumber, formatTime, plural } from './format.js'
import { may } from './roles.js'
import { Badge, Button, ConfirmDialog, ErrorNote, Field, Loaded, MorePages, Note } from './ui.js'

/** How often the live view asks again: a guest registered at a kiosk shows within this. */
export const LIVE_REFRESH_MS = 3_000
const PAGE_SIZE = 20
const LIVE_INTERACTIVE_MARK = 'console-live-interactive'

type Status = StaffSession['status']
const STATUS_NAMES: Record<Status, string> = { active: 'Shooting', completed: 'Gallery live', cancelled: 'Cancelled' }
const STATUS_TONES: Record<Status, 'info' | 'good' | 'neutral'> = { active: 'info', completed: 'good', cancelled: 'neutral' }

const MESSAGE_NAMES: Record<StaffMessage['status'], string> = {
  pending: 'Queued',
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  undelivered: 'Undelivered',
  suppressed: 'Suppressed',
  failed: 'Failed',
}
const MESSAGE_TONES: Record<StaffMessage['status'], 'neutral' | 'info' | 'good' | 'bad' | 'warn'> = {
  pending: 'neutral',
  sent: 'info',
  delivered: 'good',
  bounced: 'bad',
  undelivered: 'bad',
  suppressed: 'warn',
  failed: 'bad',
}

/** After any change to a session: the live list and the numbers again. */
function useSessionsChanged(eventId: string) {
  const queryClient = useQueryClient()
  return () => {
    void queryClient.invalidateQueries({ queryKey: api.sessions.key() })
    void queryClient.invalidateQueries({ queryKey: api.events.stats.key({ input: { eventId } }) })
  }
}

export function LiveView({ me, event }: { me: StaffMember; event: StaffEvent }) {
  const [setId, setSetId] = useState('')
  const [status, setStatus] = useState<Status | ''>('')
  const sessions = useInfiniteQuery(
    api.sessions.list.infiniteOptions({
      input: (cursor: string | undefined) => ({
        eventId: event.id,
        limit: PAGE_SIZE,
        ...(setId ? { setId } : {}),
        ...(status ? { status } : {}),
        ...(cursor ? { cursor } : {}),
      }),
      initialPageParam: undefined,
      getNextPageParam: (page) => page.nextCursor ?? undefined,
      refetchInterval: LIVE_REFRESH_MS,
      placeholderData: keepPreviousData,
    }),
  )
  const stats = useQuery(api.events.stats.queryOptions({ input: { eventId: event.id }, refetchInterval: LIVE_REFRESH_MS * 2 }))
  const changed = useSessionsChanged(event.id)
  const retryAll = useMutation(api.messages.retryEvent.mutationOptions({ onSuccess: changed }))
  const list = sessions.data?.pages.flatMap((page) => page.sessions)
  const shown = list !== undefined
  // The moment the live view can be used (its sessions rendered with their handlers): what `pnpm bench console` times.
  useEffect(() => {
    if (shown && performance.getEntriesByName(LIVE_INTERACTIVE_MARK).length === 0) performance.mark(LIVE_INTERACTIVE_MARK)
  }, [shown])
  const setNames = new Map(event.sets.map((set) => [set.id, set.name]))

  return (
    <div className="stack">
      <div className="summary" aria-label="This event now">
        <Tile label="Shooting now" value={stats.data?.sessions.active ?? event.counts.sessions.active} />
        <Tile label="Galleries" value={stats.data?.sessions.completed ?? event.counts.sessions.completed} />
        <Tile label="Guests" value={stats.data?.guests ?? event.counts.guests} />
        <Tile label="Links sent" value={stats.data ? stats.data.messages.sent : undefined} />
        <Tile
          label="Failed links"
          value={stats.data ? stats.data.messages.failed : undefined}
          tone={stats.data?.messages.failed ? 'bad' : undefined}
        />
      </div>

      <div className="toolbar">
        <Field label="Set">
          {(props) => (
            <select {...props} value={setId} onChange={(e) => setSetId(e.target.value)}>
              <option value="">Every set</option>
              {event.sets.map((set) => (
                <option key={set.id} value={set.id}>
                  {set.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="State">
          {(props) => (
            <select {...props} value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
              <option value="">Every state</option>
              {Object.entries(STATUS_NAMES).map(([value, name]) => (
                <option key={value} value={value}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <span className="live-dot" title="Updates on its own">
          <span aria-hidden="true" className={sessions.isError ? 'dot off' : 'dot'} />
          {sessions.isError ? 'Not updating' : `Live · ${sessions.dataUpdatedAt ? formatTime(sessions.dataUpdatedAt) : '…'}`}
        </span>
        {may(me.role, 'messages.retryEvent') && stats.data?.messages.failed !== 0 && (
          <Button onClick={() => retryAll.mutate({ params: { eventId: event.id } })} busy={retryAll.isPending}>
            Retry failed links
          </Button>
        )}
      </div>
      {retryAll.data && (
        <Note kind="success">
          {retryAll.data.retried === 0 ? 'No failed link to send again.' : `${plural(retryAll.data.retried, 'link')} sent again.`}
        </Note>
      )}
      <ErrorNote error={retryAll.error} />
      {/* A refresh that failed keeps the last list on screen, and says so. */}
      {list && sessions.isError && <ErrorNote error={sessions.error} />}
      <NewArrivals count={list?.length} />

      <Loaded query={{ ...sessions, data: list }} what="the sessions">
        {(shown) =>
          shown.length === 0 ? (
            <div className="empty card">
              <h2>No sessions {setId || status ? 'here' : 'yet'}</h2>
              <p>Guests who register at a kiosk of this event appear here at once, and their gallery when the booth completes it.</p>
            </div>
          ) : (
            <>
              <h2 className="visually-hidden">Sessions, newest first</h2>
              <ul className="sessions">
                {shown.map((session) => (
                  <li key={session.id}>
                    <SessionCard me={me} eventId={event.id} session={session} setName={setNames.get(session.setId)} />
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </Loaded>
      <MorePages {...sessions} what="sessions" />
    </div>
  )
}

function Tile({ label, value, tone }: { label: string; value: number | undefined; tone?: 'bad' }) {
  return (
    <div className={`tile${tone ? ` ${tone}` : ''}`}>
      <span className="tile-value">{value === undefined ? '–' : formatNumber(value)}</span>
      <span className="tile-label">{label}</span>
    </div>
  )
}

/** Tells a screen reader when new sessions arrive, without reading the whole list again. */
function NewArrivals({ count }: { count: number | undefined }) {
  const last = useRef<number | undefined>(undefined)
  const [said, setSaid] = useState('')
  useEffect(() => {
    if (count === undefined) return
    if (last.current !== undefined && count > last.current) setSaid(`${plural(count - last.current, 'new session')}`)
    last.current = count
  }, [count])
  return (
    <p className="visually-hidden" aria-live="polite">
      {said}
    </p>
  )
}

/** A guest's newest message on each channel: what staff act on (earlier ones are counted). */
function latestByChannel(messages: StaffMessage[]) {
  const latest = new Map<StaffMessage['channel'], { message: StaffMessage; earlier: number }>()
  for (const message of messages) latest.set(message.channel, { message, earlier: (latest.get(message.channel)?.earlier ?? -1) + 1 })
  return [...latest.values()]
}

function SessionCard({ me, eventId, session, setName }: { me: StaffMember; eventId: string; session: StaffSession; setName?: string }) {
  const changed = useSessionsChanged(eventId)
  const [confirm, setConfirm] = useState<'cancel' | 'delete'>()
  const resend = useMutation(api.sessions.resend.mutationOptions({ onSuccess: changed }))
  const retry = useMutation(api.messages.retrySession.mutationOptions({ onSuccess: changed }))
  const cancel = useMutation(api.sessions.cancel.mutationOptions({ onSuccess: () => (setConfirm(undefined), changed()) }))
  const remove = useMutation(api.sessions.delete.mutationOptions({ onSuccess: () => (setConfirm(undefined), changed()) }))
  const params = { params: { sessionId: session.id } }
  const live = session.status === 'completed' && session.photoCount > 0
  const failed = session.guests.some((guest) => latestByChannel(guest.messages).some(({ message }) => message.status === 'failed'))
  const titleId = `session-${session.id}`
  return (
    <article className="card session" aria-labelledby={titleId} data-session={session.id}>
      <header className="session-head">
        <div>
          <h3 id={titleId}>{session.label}</h3>
          <p className="muted">
            {setName ?? 'A deleted set'} · registered {formatAgo(session.createdAt)}
            {session.completedAt ? ` · completed ${formatTime(session.completedAt)}` : ''}
          </p>
        </div>
        <div className="session-state">
          <Badge tone={STATUS_TONES[session.status]}>{STATUS_NAMES[session.status]}</Badge>
          <span className="muted">{plural(session.photoCount, 'photo')}</span>
        </div>
      </header>
      {session.claim && (
        <p className="claim">
          {session.claim.boothName}
          {session.claim.holder ? ` (${session.claim.holder})` : ''} is photographing them
        </p>
      )}
      {session.copies && session.copies.failed.length > 0 && (
        <p className="muted">{plural(session.copies.failed.length, 'photo')} could not be resized: guests get the full-size photo.</p>
      )}
      <ul className="guests" aria-label={`Guests of ${session.label}`}>
        {session.guests.map((guest) => (
          <li key={guest.id} className="guest">
            <div className="guest-name">
              <strong>{guest.name}</strong>
              <Contact guest={guest} />
            </div>
            <div className="messages">
              {guest.messages.length === 0 && (
                <span className="muted">{session.status === 'active' ? 'Link sent when the gallery is ready' : 'No link sent'}</span>
              )}
              {latestByChannel(guest.messages).map(({ message, earlier }) => (
                <MessageState
                  key={message.id}
                  message={message}
                  earlier={earlier}
                  eventId={eventId}
                  canRetry={may(me.role, 'messages.retry')}
                />
              ))}
            </div>
          </li>
        ))}
      </ul>
      <div className="actions">
        {live && (
          <a className="button quiet" href={session.galleryUrl} target="_blank" rel="noreferrer">
            Open the gallery
          </a>
        )}
        {live && may(me.role, 'sessions.resend') && (
          <Button onClick={() => resend.mutate(params)} busy={resend.isPending}>
            Send the link again
          </Button>
        )}
        {failed && may(me.role, 'messages.retrySession') && (
          <Button onClick={() => retry.mutate(params)} busy={retry.isPending}>
            Retry failed
          </Button>
        )}
        {session.status === 'active' && may(me.role, 'sessions.cancel') && <Button onClick={() => setConfirm('cancel')}>Cancel</Button>}
        {may(me.role, 'sessions.delete') && (
          <Button kind="danger" onClick={() => setConfirm('delete')}>
            Delete
          </Button>
        )}
      </div>
      {resend.data && (
        <Note kind="success">
          {resend.data.queued === 0 && resend.data.suppressed === 0
            ? 'Nothing to send: a link is already on its way (or went out less than a minute ago).'
            : `${plural(resend.data.queued, 'link')} on the way${resend.data.suppressed ? `; ${resend.data.suppressed} not sent: the address opted out` : ''}.`}
        </Note>
      )}
      {retry.data && <Note kind="success">{plural(retry.data.retried, 'failed link')} sent again.</Note>}
      <ErrorNote error={resend.error ?? retry.error} />
      <ConfirmDialog
        open={confirm === 'cancel'}
        title={`Cancel ${session.label}?`}
        confirm="Cancel the session"
        busy={cancel.isPending}
        error={cancel.error}
        onClose={() => (setConfirm(undefined), cancel.reset())}
        onConfirm={() => cancel.mutate(params)}
      >
        <p>The booth can no longer add photos to it and its guests get no link. Their details are deleted after a day.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'delete'}
        title={`Delete ${session.label}?`}
        confirm="Delete the session"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => (setConfirm(undefined), remove.reset())}
        onConfirm={() => remove.mutate(params)}
      >
        <p>
          This deletes {plural(session.guests.length, 'guest')}’ names, emails and phones, their messages and{' '}
          {plural(session.photoCount, 'photo')} (from storage too). Their gallery link stops working. This cannot be undone.
        </p>
      </ConfirmDialog>
    </article>
  )
}

type StaffGuest = StaffSession['guests'][number]

/**
 * A guest's email and phone: in full for managers and owners; masked for the staff role, who may ask
 * for one guest's in full (a guest at the booth whose link went astray), which the audit trail records.
 */
function Contact({ guest }: { guest: StaffGuest }) {
  const [asked, setAsked] = useState(false)
  const full = useQuery({
    ...api.sessions.guestContact.queryOptions({ input: { guestId: guest.id } }),
    enabled: asked,
    staleTime: Infinity,
  })
  const shown = full.data ?? guest
  return (
    <span className="muted contact">
      {[shown.email, shown.phone].filter(Boolean).join(' · ')}
      {guest.contactMasked && !full.data && (
        <Button
          kind="quiet"
          className="reveal"
          onClick={() => setAsked(true)}
          busy={full.isFetching}
          aria-label={`Show ${guest.name}’s contact in full`}
        >
          Show
        </Button>
      )}
      <ErrorNote error={full.error} />
    </span>
  )
}

function MessageState({
  message,
  earlier,
  eventId,
  canRetry,
}: {
  message: StaffMessage
  earlier: number
  eventId: string
  canRetry: boolean
}) {
  const changed = useSessionsChanged(eventId)
  const retry = useMutation(api.messages.retry.mutationOptions({ onSuccess: changed }))
  const channel = message.channel === 'email' ? 'Email' : 'SMS'
  return (
    <div className="message" data-channel={message.channel}>
      <Badge tone={MESSAGE_TONES[message.status]}>
        {channel} · {MESSAGE_NAMES[message.status]}
      </Badge>
      {earlier > 0 && <small className="muted">{plural(earlier, 'earlier try', 'earlier tries')}</small>}
      {message.lastError && message.status !== 'delivered' && message.status !== 'sent' && (
        <small className="reason">{message.lastError}</small>
      )}
      {message.status === 'failed' && canRetry && (
        <Button kind="quiet" onClick={() => retry.mutate({ params: { messageId: message.id } })} busy={retry.isPending}>
          Try again
        </Button>
      )}
      <ErrorNote error={retry.error} />
    </div>
  )
}
