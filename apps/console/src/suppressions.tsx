/** The suppression list: whether an address opted out (a bounce, a complaint, STOP), and lifting an email's. */
import { useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'

import { api, type client, type Output, type StaffMember } from './api.js'
import { formatDateTime } from './format.js'
import { may } from './roles.js'
import { Button, ContactSearch, ErrorNote, Loaded, Note, PageHeader } from './ui.js'

type Reason = Output<typeof client.staff.messages.findSuppressions>['suppressions'][number]['reason']

const REASONS: Record<Reason, string> = {
  'hard-bounce': 'The mailbox does not exist (a hard bounce)',
  'spam-complaint': 'They marked a message as spam',
  unsubscribed: 'They unsubscribed (or texted STOP)',
  'inactive-recipient': 'The mail provider refused it: the address is inactive there',
}

export function Suppressions({ me }: { me: StaffMember }) {
  const [query, setQuery] = useState<{ email: string } | { phone: string }>()
  const found = useQuery({ ...api.messages.findSuppressions.queryOptions({ input: query ?? { email: '' } }), enabled: query !== undefined })
  const lift = useMutation(api.messages.liftSuppression.mutationOptions({ onSuccess: () => void found.refetch() }))
  return (
    <>
      <PageHeader title="Opt-outs" lead="A guest says their link never came: check whether their address is on the suppression list." />
      <ContactSearch
        title="Look up an address"
        labels={{ email: 'Email address', phone: 'Phone number' }}
        action="Look up"
        busy={found.isFetching}
        onSearch={(next) => {
          lift.reset()
          setQuery(next)
        }}
      />
      {query && (
        <Loaded query={found} what="the suppression list">
          {({ suppressions }) =>
            suppressions.length === 0 ? (
              <Note kind="success">Not on the list: links to this address are sent.</Note>
            ) : (
              <div className="card">
                <ul className="plain">
                  {suppressions.map((suppression) => (
                    <li key={`${suppression.channel}-${suppression.since}`}>
                      <strong>{suppression.channel === 'email' ? 'Email' : 'SMS'}:</strong> {REASONS[suppression.reason]}, since{' '}
                      {formatDateTime(suppression.since)}
                    </li>
                  ))}
                </ul>
                {'email' in query && may(me.role, 'messages.liftSuppression') && (
                  <Button onClick={() => lift.mutate({ body: { email: query.email } })} busy={lift.isPending}>
                    Lift it: send to this email again
                  </Button>
                )}
                {'phone' in query && <p className="muted">An SMS opt-out is lifted only by the guest, texting START.</p>}
              </div>
            )
          }
        </Loaded>
      )}
      {lift.data && (
        <Note kind="success">
          Lifted.
          {lift.data.liftedAtPostmark ? '' : ' Reactivate the address at the mail provider too: it did not answer, or is not set up.'}
        </Note>
      )}
      <ErrorNote error={lift.error} />
    </>
  )
}
