/** The events, newest start first, and a new one. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useLocation } from 'wouter'

import { api, type StaffEvent, type StaffMember } from './api.js'
import { EventForm, newEventBody } from './event-form.js'
import { formatDay, formatNumber, formatTime } from './format.js'
import { may, mayAct, OWNER_ONLY_FIELDS } from './roles.js'
import { Badge, Loaded, PageHeader } from './ui.js'

export function EventList({ me }: { me: StaffMember }) {
  const events = useQuery(api.events.list.queryOptions())
  return (
    <>
      <PageHeader
        title="Events"
        lead="Every event, newest first: open one to follow it live."
        actions={
          may(me.role, 'events.create') && (
            <Link href="/events/new" className="button primary">
              New event
            </Link>
          )
        }
      />
      <Loaded query={events} what="the events">
        {({ events: list }) =>
          list.length === 0 ? (
            <div className="empty card">
              <h2>No events yet</h2>
              <p>
                {may(me.role, 'events.create')
                  ? 'Create the first one: its sets then get a kiosk address for the tablet at the booth.'
                  : 'A manager or an owner of the team creates events.'}
              </p>
            </div>
          ) : (
            <ul className="event-cards">
              {list.map((event) => (
                <li key={event.id}>
                  <EventCard event={event} />
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  )
}

function EventCard({ event }: { event: StaffEvent }) {
  const live = event.counts.sessions.active > 0
  return (
    <Link href={`/events/${event.id}`} className="event-card card">
      <span className="event-date" aria-hidden="true">
        <b>{new Date(event.startAt).getDate()}</b>
        {new Date(event.startAt).toLocaleString(undefined, { month: 'short' })}
      </span>
      <span className="event-main">
        <span className="event-name">{event.name}</span>
        <span className="muted">
          {formatDay(event.startAt)} · {formatTime(event.startAt)}
        </span>
        <span className="badges">
          {live && <Badge tone="good">● Live now</Badge>}
          <Badge>{event.isPrivate ? 'Private' : 'Public page'}</Badge>
          <Badge>{event.sets.length === 1 ? '1 set' : `${event.sets.length} sets`}</Badge>
        </span>
      </span>
      <span className="event-counts">
        <Count n={event.counts.sessions.completed} one="gallery" many="galleries" />
        <Count n={event.counts.guests} one="guest" many="guests" />
        <Count n={event.counts.photos} one="photo" many="photos" />
      </span>
    </Link>
  )
}

function Count({ n, one, many }: { n: number; one: string; many: string }) {
  return (
    <span>
      <b>{formatNumber(n)}</b> {n === 1 ? one : many}
    </span>
  )
}

export function NewEvent({ me }: { me: StaffMember }) {
  const [, navigate] = useLocation()
  const queryClient = useQueryClient()
  const create = useMutation(
    api.events.create.mutationOptions({
      onSuccess: (event) => {
        void queryClient.invalidateQueries({ queryKey: api.events.key() })
        navigate(`/events/${event.id}/sets`)
      },
    }),
  )
  const owner = mayAct(me.role, OWNER_ONLY_FIELDS.retention)
  return (
    <>
      <PageHeader title="New event" lead="Its sets (booths, stations) come next, each with the address of its kiosk." />
      <EventForm
        me={me}
        submitLabel="Create the event"
        busy={create.isPending}
        error={create.error}
        onSubmit={(draft) => create.mutate({ body: newEventBody(draft, owner) })}
      />
    </>
  )
}
