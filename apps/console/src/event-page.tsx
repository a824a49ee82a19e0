/** One event: its live view, its sets and kiosks, its numbers, its settings; each a tab of its own address. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link, Redirect, Route, Switch, useLocation, useRoute } from 'wouter'

import { api, type StaffEvent, type StaffMember } from './api.js'
import { errorCode } from './errors.js'
import { EventForm, eventChanges, slugOf } from './event-form.js'
import { formatDay, formatTime, plural } from './format.js'
import { LiveView } from './live.js'
import { Numbers } from './numbers.js'
import { may, mayAct, OWNER_ONLY_FIELDS } from './roles.js'
import { Badge, Button, ConfirmDialog, CopyButton, ErrorNote, Field, Loaded, Note, QrCode } from './ui.js'

export function EventPage({ me, eventId }: { me: StaffMember; eventId: string }) {
  const event = useQuery(api.events.get.queryOptions({ input: { eventId } }))
  return (
    <Loaded query={event} what="the event">
      {(data) => <EventScreens me={me} event={data} />}
    </Loaded>
  )
}

function Tab({ href, label }: { href: string; label: string }) {
  const [active] = useRoute(href)
  return (
    <Link href={href} className={`tab${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined}>
      {label}
    </Link>
  )
}

function EventScreens({ me, event }: { me: StaffMember; event: StaffEvent }) {
  const base = `/events/${event.id}`
  return (
    <>
      <div className="event-header">
        <Link href="/" className="back">
          ← Events
        </Link>
        <h1>{event.name}</h1>
        <p className="muted">
          {formatDay(event.startAt)} at {formatTime(event.startAt)} · <Badge>{event.isPrivate ? 'Private' : 'Public page'}</Badge>
        </p>
        <nav className="tabs" aria-label="Event">
          <Tab href={base} label="Live" />
          <Tab href={`${base}/sets`} label="Sets & kiosks" />
          <Tab href={`${base}/numbers`} label="Numbers" />
          {may(me.role, 'events.update') && <Tab href={`${base}/settings`} label="Settings" />}
        </nav>
      </div>
      <Switch>
        <Route path={base}>{() => <LiveView me={me} event={event} />}</Route>
        <Route path={`${base}/sets`}>{() => <Sets me={me} event={event} />}</Route>
        <Route path={`${base}/numbers`}>{() => <Numbers me={me} event={event} />}</Route>
        {may(me.role, 'events.update') && <Route path={`${base}/settings`}>{() => <Settings me={me} event={event} />}</Route>}
        <Route>
          <Redirect to={base} replace />
        </Route>
      </Switch>
    </>
  )
}

/** After a change to an event or its sets: the event and the list show it. */
function useEventChanged() {
  const queryClient = useQueryClient()
  return () => void queryClient.invalidateQueries({ queryKey: api.events.key() })
}

function Sets({ me, event }: { me: StaffMember; event: StaffEvent }) {
  return (
    <div className="stack">
      {event.sets.length === 0 && (
        <div className="empty card">
          <h2>No sets yet</h2>
          <p>A set is a booth or a station: each gets its own kiosk address for the tablet beside it.</p>
        </div>
      )}
      <ul className="set-cards">
        {event.sets.map((set) => (
          <li key={set.id}>
            <SetCard me={me} set={set} />
          </li>
        ))}
      </ul>
      {may(me.role, 'sets.create') && <NewSet eventId={event.id} />}
    </div>
  )
}

type StaffSet = StaffEvent['sets'][number]

function SetCard({ me, set }: { me: StaffMember; set: StaffSet }) {
  const [renaming, setRenaming] = useState(false)
  const [name, setName] = useState(set.name)
  const [confirming, setConfirming] = useState(false)
  const changed = useEventChanged()
  const rename = useMutation(api.sets.update.mutationOptions({ onSuccess: () => (setRenaming(false), changed()) }))
  const remove = useMutation(api.sets.delete.mutationOptions({ onSuccess: () => (setConfirming(false), changed()) }))
  const active = errorCode(remove.error) === 'active_sessions'
  return (
    <article className="card set-card" aria-labelledby={`set-${set.id}`}>
      <div className="set-info">
        {renaming ? (
          <form
            className="inline-form"
            onSubmit={(event) => {
              event.preventDefault()
              rename.mutate({ params: { setId: set.id }, body: { name: name.trim() } })
            }}
          >
            <Field label="Set name">
              {(props) => <input {...props} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
            </Field>
            <Button kind="primary" type="submit" busy={rename.isPending}>
              Save
            </Button>
            <Button onClick={() => setRenaming(false)}>Cancel</Button>
          </form>
        ) : (
          <h2 id={`set-${set.id}`}>{set.name}</h2>
        )}
        <ErrorNote error={rename.error} />
        <p className="muted">Kiosk address</p>
        <p className="kiosk-url">
          <a href={set.kioskUrl} target="_blank" rel="noreferrer">
            {set.kioskUrl}
          </a>
        </p>
        <div className="actions">
          <CopyButton text={set.kioskUrl} label="Copy the address" />
          {may(me.role, 'sets.update') && !renaming && <Button onClick={() => setRenaming(true)}>Rename</Button>}
          {may(me.role, 'sets.delete') && (
            <Button kind="danger" onClick={() => setConfirming(true)}>
              Delete
            </Button>
          )}
        </div>
      </div>
      <div className="set-qr">
        <QrCode text={set.kioskUrl} label={`QR code of ${set.name}’s kiosk address: scan it with the tablet`} size={132} />
        <small>Scan with the tablet</small>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Delete ${set.name}?`}
        confirm={active ? 'Delete anyway' : 'Delete the set'}
        busy={remove.isPending}
        error={active ? undefined : remove.error}
        onClose={() => (setConfirming(false), remove.reset())}
        onConfirm={() => remove.mutate({ params: { setId: set.id }, query: active ? { force: 'true' } : {} })}
      >
        <p>Its sessions go with it: every guest’s contact details, messages and photos, from storage too. This cannot be undone.</p>
        {active && <Note kind="warning">Guests are being photographed at this set right now. Deleting it ends their session.</Note>}
      </ConfirmDialog>
    </article>
  )
}

function NewSet({ eventId }: { eventId: string }) {
  const [name, setName] = useState('')
  const changed = useEventChanged()
  const create = useMutation(api.sets.create.mutationOptions({ onSuccess: () => (setName(''), changed()) }))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ params: { eventId }, body: { name: name.trim(), slug: slugOf(name) } })
  }
  return (
    <form className="card inline-form new-set" onSubmit={submit} aria-labelledby="new-set-title">
      <h2 id="new-set-title">Add a set</h2>
      <Field
        label="Set name"
        hint={name ? `Its address ends in /${slugOf(name) || '…'}` : 'A booth or a station: “Photo wall”, “Mirror booth”.'}
      >
        {(props) => <input {...props} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Button kind="primary" type="submit" busy={create.isPending}>
        Add the set
      </Button>
      <ErrorNote error={create.error} />
    </form>
  )
}

function Settings({ me, event }: { me: StaffMember; event: StaffEvent }) {
  const changed = useEventChanged()
  const update = useMutation(api.events.update.mutationOptions({ onSuccess: changed }))
  const [nothing, setNothing] = useState(false)
  const owner = mayAct(me.role, OWNER_ONLY_FIELDS.retention)
  return (
    <div className="stack">
      <EventForm
        key={event.id}
        me={me}
        event={event}
        submitLabel="Save the changes"
        busy={update.isPending}
        error={update.error}
        onSubmit={(draft, before) => {
          const changes = eventChanges(before, draft, owner)
          setNothing(Object.keys(changes).length === 0)
          if (Object.keys(changes).length > 0) update.mutate({ params: { eventId: event.id }, body: changes })
        }}
      />
      {nothing && <Note>Nothing changed.</Note>}
      {update.isSuccess && !nothing && <Note kind="success">Saved.</Note>}
      {may(me.role, 'events.delete') && <DeleteEvent event={event} />}
    </div>
  )
}

function DeleteEvent({ event }: { event: StaffEvent }) {
  const [open, setOpen] = useState(false)
  const [, navigate] = useLocation()
  const queryClient = useQueryClient()
  const remove = useMutation(
    api.events.delete.mutationOptions({
      onSuccess: () => {
        queryClient.removeQueries({ queryKey: api.events.get.key({ input: { eventId: event.id } }) })
        void queryClient.invalidateQueries({ queryKey: api.events.list.key() })
        navigate('/')
      },
    }),
  )
  const active = errorCode(remove.error) === 'active_sessions'
  const { sessions, guests, photos } = event.counts
  const total = sessions.active + sessions.completed + sessions.cancelled
  return (
    <section className="card danger-zone" aria-labelledby="delete-event-title">
      <h2 id="delete-event-title">Delete this event</h2>
      <p>Everything of it goes, from storage too: there is no undo.</p>
      <Button kind="danger" onClick={() => setOpen(true)}>
        Delete the event
      </Button>
      <ConfirmDialog
        open={open}
        title={`Delete ${event.name}?`}
        confirm={active ? 'Delete anyway' : 'Delete the event'}
        busy={remove.isPending}
        error={active ? undefined : remove.error}
        onClose={() => (setOpen(false), remove.reset())}
        onConfirm={() => remove.mutate({ params: { eventId: event.id }, query: active ? { force: 'true' } : {} })}
      >
        <p>This deletes, for good:</p>
        <ul>
          <li>{plural(event.sets.length, 'set')} and their kiosk addresses</li>
          <li>
            {plural(total, 'session')}, with {plural(guests, 'guest')}’ names, emails and phones
          </li>
          <li>{plural(photos, 'photo')}, from storage too; the guests’ gallery links stop working</li>
        </ul>
        {active && <Note kind="warning">A booth is photographing guests of this event right now. Deleting it ends their session.</Note>}
      </ConfirmDialog>
    </section>
  )
}
