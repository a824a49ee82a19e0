/** Booth keys: made for chosen events (the whole key shown once), listed with their last use, revoked at once. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'

import { api, type Output, type client, type StaffMember } from './api.js'
import { formatAgo, formatDateTime } from './format.js'
import { mayAct, OWNER_ONLY_FIELDS } from './roles.js'
import { Badge, Button, ConfirmDialog, CopyButton, ErrorNote, Field, Loaded, PageHeader } from './ui.js'

type BoothKey = Output<typeof client.staff.boothKeys.list>['keys'][number]

export function BoothKeys({ me }: { me: StaffMember }) {
  const keys = useQuery(api.boothKeys.list.queryOptions())
  const events = useQuery(api.events.list.queryOptions())
  const names = new Map(events.data?.events.map((event) => [event.id, event.name]))
  return (
    <>
      <PageHeader title="Booth keys" lead="A booth’s app signs in with a key. Make one per booth, for the events it works at." />
      <NewBoothKey me={me} />
      <section aria-labelledby="keys-title" className="stack">
        <h2 id="keys-title">Keys</h2>
        <Loaded query={keys} what="the booth keys">
          {({ keys: list }) =>
            list.length === 0 ? (
              <p className="muted">No booth key yet.</p>
            ) : (
              <ul className="rows">
                {[...list].reverse().map((key) => (
                  <li key={key.id}>
                    <KeyRow boothKey={key} names={names} />
                  </li>
                ))}
              </ul>
            )
          }
        </Loaded>
      </section>
    </>
  )
}

function NewBoothKey({ me }: { me: StaffMember }) {
  const [name, setName] = useState('')
  const [chosen, setChosen] = useState<string[]>([])
  const [everyEvent, setEveryEvent] = useState(false)
  const events = useQuery(api.events.list.queryOptions())
  const queryClient = useQueryClient()
  const create = useMutation(
    api.boothKeys.create.mutationOptions({
      onSuccess: () => {
        setName('')
        setChosen([])
        void queryClient.invalidateQueries({ queryKey: api.boothKeys.key() })
      },
    }),
  )
  const mayUnscoped = mayAct(me.role, OWNER_ONLY_FIELDS.unscopedBoothKey)
  const toggle = (id: string) => setChosen((current) => (current.includes(id) ? current.filter((other) => other !== id) : [...current, id]))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ body: { name: name.trim(), ...(everyEvent && mayUnscoped ? {} : { eventIds: chosen }) } })
  }
  const noEvent = !everyEvent && chosen.length === 0
  return (
    <section className="card" aria-labelledby="new-key-title">
      <h2 id="new-key-title">New booth key</h2>
      {create.data ? (
        <div className="secret-box" role="status">
          <p>
            <strong>The key of {create.data.name}.</strong> Copy it into the booth’s app now: it is shown only this once.
          </p>
          <code className="secret">{create.data.key}</code>
          <div className="actions">
            <CopyButton text={create.data.key} label="Copy the key" />
            <Button onClick={() => create.reset()}>Done</Button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit}>
          <Field label="Booth name" hint="As you tell the booths apart: “Mirror booth 1”.">
            {(props) => <input {...props} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <fieldset className="choices">
            <legend>It works for</legend>
            {mayUnscoped && (
              <label className="check">
                <input type="checkbox" checked={everyEvent} onChange={(e) => setEveryEvent(e.target.checked)} />
                <span>
                  Every event, now and later<small>Convenient for a booth you own; a key for chosen events is safer to lend.</small>
                </span>
              </label>
            )}
            {!everyEvent &&
              (events.data?.events ?? []).map((event) => (
                <label className="check" key={event.id}>
                  <input type="checkbox" checked={chosen.includes(event.id)} onChange={() => toggle(event.id)} />
                  <span>{event.name}</span>
                </label>
              ))}
            {events.data?.events.length === 0 && <p className="muted">Create an event first.</p>}
          </fieldset>
          <ErrorNote error={create.error ?? events.error} />
          <Button kind="primary" type="submit" busy={create.isPending} disabled={noEvent}>
            Create the key
          </Button>
          {noEvent && <p className="hint">Choose at least one event.</p>}
        </form>
      )}
    </section>
  )
}

function KeyRow({ boothKey, names }: { boothKey: BoothKey; names: Map<string, string> }) {
  const [confirming, setConfirming] = useState(false)
  const queryClient = useQueryClient()
  const revoke = useMutation(
    api.boothKeys.revoke.mutationOptions({
      onSuccess: () => {
        setConfirming(false)
        void queryClient.invalidateQueries({ queryKey: api.boothKeys.key() })
      },
    }),
  )
  const scope =
    boothKey.unscoped || !boothKey.eventIds ? 'Every event' : boothKey.eventIds.map((id) => names.get(id) ?? 'a deleted event').join(', ')
  return (
    <article className="card row-card" aria-labelledby={`key-${boothKey.id}`}>
      <div>
        <h3 id={`key-${boothKey.id}`}>
          {boothKey.name} {boothKey.revokedAt ? <Badge tone="bad">Revoked</Badge> : <Badge tone="good">Active</Badge>}
        </h3>
        <p className="muted">
          <code>{boothKey.id}</code> · {scope}
        </p>
        <p className="muted">
          {boothKey.lastUsedAt ? `Last used ${formatAgo(boothKey.lastUsedAt)}` : 'Never used'} · made {formatDateTime(boothKey.createdAt)}
          {boothKey.revokedAt ? ` · revoked ${formatDateTime(boothKey.revokedAt)}` : ''}
        </p>
      </div>
      {!boothKey.revokedAt && (
        <Button kind="danger" onClick={() => setConfirming(true)}>
          Revoke
        </Button>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Revoke ${boothKey.name}?`}
        confirm="Revoke the key"
        busy={revoke.isPending}
        error={revoke.error}
        onClose={() => (setConfirming(false), revoke.reset())}
        onConfirm={() => revoke.mutate({ params: { keyId: boothKey.id } })}
      >
        <p>The booth using it stops at once: its uploads not yet completed are refused too. A new key is needed to work again.</p>
      </ConfirmDialog>
    </article>
  )
}
