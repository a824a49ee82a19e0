/** The team, for owners: members and their roles, invitations, removals, and whether a second factor is required. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'

import { api, type Role, type StaffMember } from './api.js'
import { formatDateTime } from './format.js'
import { ROLE_NAMES } from './shell.js'
import { Badge, Button, ConfirmDialog, CopyButton, ErrorNote, Field, Loaded, Note, PageHeader } from './ui.js'

const ROLE_HINTS: Record<Role, string> = {
  owner: 'Everything: the team, deletions, one guest’s data, retention, the audit trail',
  manager: 'Events and sets, booth keys, the guest list',
  staff: 'Running events: sessions, sending links again, numbers',
}

function useTeamChanged() {
  const queryClient = useQueryClient()
  return () => void queryClient.invalidateQueries({ queryKey: api.members.key() })
}

export function Team({ me }: { me: StaffMember }) {
  const members = useQuery(api.members.list.queryOptions())
  return (
    <>
      <PageHeader title="Team" lead="Who may sign in, and what each may do." />
      <div className="grid two">
        <Invite />
        <TeamRules me={me} />
      </div>
      <section aria-labelledby="members-title" className="stack">
        <h2 id="members-title">Members</h2>
        <Loaded query={members} what="the team">
          {({ members: list }) => (
            <ul className="rows">
              {list.map((member) => (
                <li key={member.id}>
                  <MemberRow member={member} self={member.id === me.id} />
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      </section>
    </>
  )
}

function MemberRow({ member, self }: { member: StaffMember; self: boolean }) {
  const [confirming, setConfirming] = useState(false)
  const changed = useTeamChanged()
  const setRole = useMutation(api.members.setRole.mutationOptions({ onSuccess: changed }))
  const remove = useMutation(api.members.remove.mutationOptions({ onSuccess: () => (setConfirming(false), changed()) }))
  return (
    <article className="card row-card" aria-labelledby={`member-${member.id}`}>
      <div>
        <h3 id={`member-${member.id}`}>
          {member.name} {self && <Badge tone="accent">You</Badge>}{' '}
          {member.twoFactorEnabled ? <Badge tone="good">Second factor</Badge> : <Badge>Password only</Badge>}
        </h3>
        <p className="muted">
          {member.email} · since {formatDateTime(member.createdAt)}
        </p>
        <ErrorNote error={setRole.error} />
      </div>
      <div className="actions">
        <Field label={`Role of ${member.name}`} className="compact">
          {(props) => (
            <select
              {...props}
              value={member.role}
              disabled={setRole.isPending}
              onChange={(e) => setRole.mutate({ params: { memberId: member.id }, body: { role: e.target.value as Role } })}
            >
              {(Object.keys(ROLE_NAMES) as Role[]).map((role) => (
                <option key={role} value={role}>
                  {ROLE_NAMES[role]}
                </option>
              ))}
            </select>
          )}
        </Field>
        {!self && (
          <Button kind="danger" onClick={() => setConfirming(true)}>
            Remove
          </Button>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Remove ${member.name}?`}
        confirm="Remove from the team"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => (setConfirming(false), remove.reset())}
        onConfirm={() => remove.mutate({ params: { memberId: member.id } })}
      >
        <p>They are signed out everywhere at once and can no longer sign in. What they did stays in the audit trail.</p>
      </ConfirmDialog>
    </article>
  )
}

function Invite() {
  const [email, setEmail] = useState('')
  const [name, setName] = useState('')
  const [role, setRole] = useState<Role>('staff')
  const changed = useTeamChanged()
  const invite = useMutation(
    api.members.invite.mutationOptions({
      onSuccess: () => {
        setEmail('')
        setName('')
        changed()
      },
    }),
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    invite.mutate({ body: { email: email.trim(), name: name.trim(), role } })
  }
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a member</h2>
      {invite.data?.password ? (
        <div className="secret-box" role="status">
          <p>
            <strong>{invite.data.member.name}</strong> signs in with {invite.data.member.email} and this one-time password, then chooses
            their own. It is shown only now: hand it over in person or by a channel you trust.
          </p>
          <code className="secret">{invite.data.password}</code>
          <div className="actions">
            <CopyButton text={invite.data.password} label="Copy the password" />
            <Button onClick={() => invite.reset()}>Done</Button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit}>
          <Field label="Name">
            {(props) => <input {...props} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="Email">
            {(props) => (
              <input {...props} type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
            )}
          </Field>
          <Field label="Role" hint={ROLE_HINTS[role]}>
            {(props) => (
              <select {...props} value={role} onChange={(e) => setRole(e.target.value as Role)}>
                {(Object.keys(ROLE_NAMES) as Role[]).map((option) => (
                  <option key={option} value={option}>
                    {ROLE_NAMES[option]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <ErrorNote error={invite.error} />
          <Button kind="primary" type="submit" busy={invite.isPending}>
            Invite
          </Button>
        </form>
      )}
    </section>
  )
}

function TeamRules({ me }: { me: StaffMember }) {
  const team = useQuery(api.members.getTeam.queryOptions())
  const changed = useTeamChanged()
  const update = useMutation(api.members.updateTeam.mutationOptions({ onSuccess: changed }))
  return (
    <section className="card" aria-labelledby="rules-title">
      <h2 id="rules-title">Sign-in rules</h2>
      <Loaded query={team} what="the team’s rules">
        {({ requireTwoFactor }) => (
          <>
            <label className="check">
              <input
                type="checkbox"
                checked={requireTwoFactor}
                disabled={update.isPending}
                onChange={(e) => update.mutate({ body: { requireTwoFactor: e.target.checked } })}
              />
              <span>
                Require a second factor of every member
                <small>Members without one must set it up before anything else. Your own comes first.</small>
              </span>
            </label>
            {!me.twoFactorEnabled && <Note kind="warning">You have no second factor yet: set it up under Your account first.</Note>}
            <ErrorNote error={update.error} />
          </>
        )}
      </Loaded>
    </section>
  )
}
