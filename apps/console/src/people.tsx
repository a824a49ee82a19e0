/** One person's rights (docs/guests-data.md), for owners: find them across events, hand them their data, erase them. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'

import { api, client, type Output } from './api.js'
import { plural } from './format.js'
import { Button, ConfirmDialog, ContactSearch, ErrorNote, Loaded, Note, PageHeader } from './ui.js'

type Person = Output<typeof client.staff.people.find>['people'][number]

export function People() {
  const [query, setQuery] = useState<{ email: string } | { phone: string }>()
  const [erased, setErased] = useState<string>()
  const found = useQuery({ ...api.people.find.queryOptions({ input: query ?? { email: '' } }), enabled: query !== undefined })
  return (
    <>
      <PageHeader title="People" lead="A guest asks what you hold about them, or to be forgotten: find them across every event." />
      <ContactSearch
        title="Find a guest"
        labels={{ email: 'Their email', phone: 'Their phone number' }}
        action="Find"
        busy={found.isFetching}
        onSearch={(next) => {
          setErased(undefined)
          setQuery(next)
        }}
      />
      {erased && <Note kind="success">{erased}</Note>}
      {query && (
        <Loaded query={found} what="the people found">
          {({ people }) =>
            people.length === 0 ? (
              <p className="muted">Nobody registered with these details.</p>
            ) : (
              <ul className="rows">
                {people.map((person) => (
                  <li key={person.id}>
                    <PersonCard person={person} onErased={setErased} />
                  </li>
                ))}
              </ul>
            )
          }
        </Loaded>
      )}
    </>
  )
}

/** The export as a JSON file the person can be sent. */
function saveAs(name: string, data: unknown) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

function PersonCard({ person, onErased }: { person: Person; onErased: (text: string) => void }) {
  const [confirming, setConfirming] = useState(false)
  const queryClient = useQueryClient()
  const exported = useMutation({
    mutationFn: () => client.staff.people.export({ customerId: person.id }),
    onSuccess: (data) => saveAs(`${person.name.replace(/[^\p{L}\p{N} _-]+/gu, '').trim() || 'guest'} - data.json`, data),
  })
  const erase = useMutation(
    api.people.erase.mutationOptions({
      onSuccess: ({ erased }) => {
        setConfirming(false)
        onErased(
          `${person.name} is erased: ${plural(erased.guests, 'registration')}, ${plural(erased.sessions, 'session')} and ${plural(erased.photos, 'photo')} deleted.`,
        )
        void queryClient.invalidateQueries()
      },
    }),
  )
  return (
    <article className="card row-card" aria-labelledby={`person-${person.id}`}>
      <div>
        <h3 id={`person-${person.id}`}>{person.name}</h3>
        <p className="muted">{[person.email, person.phone].filter(Boolean).join(' · ')}</p>
        <p className="muted">
          {plural(person.registrations, 'registration')} at {person.events.map((event) => event.name).join(', ')}
        </p>
        <ErrorNote error={exported.error} />
      </div>
      <div className="actions">
        <Button onClick={() => exported.mutate()} busy={exported.isPending}>
          Export their data
        </Button>
        <Button kind="danger" onClick={() => setConfirming(true)}>
          Erase
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Erase ${person.name}?`}
        confirm="Erase for good"
        busy={erase.isPending}
        error={erase.error}
        onClose={() => (setConfirming(false), erase.reset())}
        onConfirm={() => erase.mutate({ params: { customerId: person.id } })}
      >
        <p>
          Their name, email, phone and messages go from every event. Sessions where they were the only guest go with their photos; sessions
          they shared keep their photos for the others, without them. This cannot be undone.
        </p>
      </ConfirmDialog>
    </article>
  )
}
