/** The audit trail, for owners: who did what, when, from where; filtered, paged with the API's cursors. */
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'

import { api } from './api.js'
import { formatDateTime } from './format.js'
import { Button, Field, Loaded, MorePages, PageHeader } from './ui.js'

type Filters = { memberId: string; action: string; targetId: string; since: string; until: string }
const NONE: Filters = { memberId: '', action: '', targetId: '', since: '', until: '' }

/** The dates as the API takes them: from the start of `since`'s day, before the end of `until`'s. */
function inputOf(filters: Filters) {
  const day = (value: string, end: boolean) => new Date(`${value}T00:00`).getTime() + (end ? 86_400_000 : 0)
  return {
    ...(filters.memberId ? { memberId: filters.memberId } : {}),
    ...(filters.action.trim() ? { action: filters.action.trim() } : {}),
    ...(filters.targetId.trim() ? { targetId: filters.targetId.trim() } : {}),
    ...(filters.since ? { since: day(filters.since, false) } : {}),
    ...(filters.until ? { until: day(filters.until, true) } : {}),
  }
}

export function AuditTrail() {
  const [draft, setDraft] = useState(NONE)
  const [filters, setFilters] = useState(NONE)
  const members = useQuery(api.members.list.queryOptions())
  const names = new Map(members.data?.members.map((member) => [member.id, member.name]))
  const events = useInfiniteQuery(
    api.audit.list.infiniteOptions({
      input: (cursor: string | undefined) => ({ ...inputOf(filters), limit: 50, ...(cursor ? { cursor } : {}) }),
      initialPageParam: undefined,
      getNextPageParam: (page) => page.nextCursor ?? undefined,
      placeholderData: keepPreviousData,
    }),
  )
  const rows = events.data?.pages.flatMap((page) => page.events)
  const set = (key: keyof Filters, value: string) => setDraft((current) => ({ ...current, [key]: value }))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setFilters(draft)
  }
  return (
    <>
      <PageHeader title="Audit trail" lead="Every change by the team and every export of guests’ data, newest first. Kept a year." />
      <form className="card filters" onSubmit={submit} aria-label="Filters">
        <Field label="Member">
          {(props) => (
            <select {...props} value={draft.memberId} onChange={(e) => set('memberId', e.target.value)}>
              <option value="">Anyone</option>
              {members.data?.members.map((member) => (
                <option key={member.id} value={member.id}>
                  {member.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Action" hint="As the API names it: deleteEvent, exportGuests…">
          {(props) => <input {...props} value={draft.action} onChange={(e) => set('action', e.target.value)} />}
        </Field>
        <Field label="About (an id)">
          {(props) => <input {...props} value={draft.targetId} onChange={(e) => set('targetId', e.target.value)} />}
        </Field>
        <Field label="From">
          {(props) => <input {...props} type="date" value={draft.since} onChange={(e) => set('since', e.target.value)} />}
        </Field>
        <Field label="To">
          {(props) => <input {...props} type="date" value={draft.until} onChange={(e) => set('until', e.target.value)} />}
        </Field>
        <div className="filter-actions">
          <Button kind="primary" type="submit" busy={events.isFetching && !events.isFetchingNextPage}>
            Filter
          </Button>
          <Button
            onClick={() => {
              setDraft(NONE)
              setFilters(NONE)
            }}
          >
            Clear
          </Button>
        </div>
      </form>
      <Loaded query={{ ...events, data: rows }} what="the audit trail">
        {(list) =>
          list.length === 0 ? (
            <p className="muted">Nothing recorded for these filters.</p>
          ) : (
            <div className="table-wrap card" tabIndex={0} role="region" aria-label="Audit trail, newest first">
              <table className="audit">
                <caption className="visually-hidden">Audit trail, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">Action</th>
                    <th scope="col">About</th>
                    <th scope="col">Answer</th>
                    <th scope="col">From</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((row) => (
                    <tr key={row.id}>
                      <td data-label="When">{formatDateTime(row.at)}</td>
                      <td data-label="Who">
                        {names.get(row.memberId) ?? 'A former member'} <small className="muted">({row.role})</small>
                      </td>
                      <td data-label="Action">
                        <code>{row.action}</code>
                      </td>
                      <td className="targets" data-label="About">
                        {Object.entries(row.targets).map(([name, id]) => (
                          <span key={name}>
                            {name.replace(/Id$/, '')} <code>{id}</code>
                          </span>
                        ))}
                      </td>
                      <td data-label="Answer">
                        <span className={`status s${String(row.status)[0]}`}>{row.status}</span>
                      </td>
                      <td data-label="From">
                        <code>{row.sourceIp}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      <MorePages {...events} what="events" />
    </>
  )
}
