/** Signing in (with a second factor when the member has one), a first password, a second factor's set-up, the account. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'

import { api, type StaffMember } from './api.js'
import { Button, CopyButton, ErrorNote, Field, Note, PageHeader, PasswordField, QrCode } from './ui.js'

/** Every query again: a new session, or a member who may now do more. */
function useSignedIn() {
  const queryClient = useQueryClient()
  return () => void queryClient.invalidateQueries()
}

export function SignIn() {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [secondFactor, setSecondFactor] = useState(false)
  const signedIn = useSignedIn()
  const signIn = useMutation(
    api.auth.signIn.mutationOptions({
      onSuccess: (answer) => (answer.twoFactorRedirect ? setSecondFactor(true) : signedIn()),
    }),
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    signIn.mutate({ body: { email, password } })
  }
  return (
    <main className="auth-page" id="main">
      <div className="auth-card">
        <Brand />
        {secondFactor ? (
          <SecondFactor onDone={signedIn} />
        ) : (
          <form onSubmit={submit} aria-labelledby="sign-in-title">
            <h1 id="sign-in-title">Sign in</h1>
            <p className="lead">Run your events, your team and your guests’ galleries.</p>
            <Field label="Email">
              {(props) => (
                <input {...props} type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
              )}
            </Field>
            <PasswordField label="Password" autoComplete="current-password" value={password} onChange={setPassword} />
            <ErrorNote error={signIn.error} words={{ unauthorized: 'Wrong email or password.' }} />
            <Button kind="primary" type="submit" busy={signIn.isPending} className="wide">
              Sign in
            </Button>
          </form>
        )}
      </div>
    </main>
  )
}

/** The second step of a sign-in: the app's code, or a backup code. */
function SecondFactor({ onDone }: { onDone: () => void }) {
  const [code, setCode] = useState('')
  const [backup, setBackup] = useState(false)
  const totp = useMutation(api.auth.verifyTotp.mutationOptions({ onSuccess: onDone }))
  const backupCode = useMutation(api.auth.verifyBackupCode.mutationOptions({ onSuccess: onDone }))
  const verify = backup ? backupCode : totp
  const submit = (event: FormEvent) => {
    event.preventDefault()
    verify.mutate({ body: { code: code.trim() } })
  }
  return (
    <form onSubmit={submit} aria-labelledby="code-title">
      <h1 id="code-title">Your second factor</h1>
      <p className="lead">
        {backup ? 'Type one of the backup codes you kept. Each works once.' : 'Type the 6-digit code your authenticator app shows now.'}
      </p>
      <Field label={backup ? 'Backup code' : 'Code'}>
        {(props) => (
          <input
            {...props}
            autoComplete="one-time-code"
            inputMode={backup ? 'text' : 'numeric'}
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        )}
      </Field>
      <ErrorNote error={verify.error} words={{ unauthorized: 'That code is not right, or it has expired. Try the newest one.' }} />
      <Button kind="primary" type="submit" busy={verify.isPending} className="wide">
        Verify
      </Button>
      <Button
        kind="quiet"
        className="wide"
        onClick={() => {
          setBackup(!backup)
          setCode('')
        }}
      >
        {backup ? 'Use the app’s code instead' : 'Use a backup code instead'}
      </Button>
    </form>
  )
}

export function Brand() {
  return (
    <div className="brand">
      <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true">
        <rect width="32" height="32" rx="8" fill="var(--accent)" />
        <rect x="7" y="11" width="18" height="13" rx="3" fill="#fff" />
        <rect x="12" y="8" width="8" height="4" rx="1.5" fill="#fff" />
        <circle cx="16" cy="17.5" r="4" fill="var(--accent)" />
      </svg>
      <span>
        Booth <b>Console</b>
      </span>
    </div>
  )
}

/** A new password: the invitation's first, or a change from the account page. */
export function PasswordChange({ forced = false }: { forced?: boolean }) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [again, setAgain] = useState('')
  const signedIn = useSignedIn()
  const change = useMutation(
    api.auth.changePassword.mutationOptions({
      onSuccess: () => {
        setCurrent('')
        setNext('')
        setAgain('')
        signedIn()
      },
    }),
  )
  const mismatch = again !== '' && next !== again
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (next !== again) return
    change.mutate({ body: { currentPassword: current, newPassword: next, revokeOtherSessions: true } })
  }
  return (
    <form onSubmit={submit} className="card" aria-labelledby="password-title">
      {forced ? <h1 id="password-title">Choose your own password</h1> : <h2 id="password-title">Change your password</h2>}
      {forced && <p>You were invited with a password someone else knows. Choose one of your own to go on.</p>}
      <PasswordField
        label={forced ? 'The password you were given' : 'Current password'}
        autoComplete="current-password"
        value={current}
        onChange={setCurrent}
      />
      <PasswordField
        label="New password"
        hint="12 to 128 characters, hard to guess: a few unrelated words work well."
        autoComplete="new-password"
        value={next}
        onChange={setNext}
        isNew
      />
      <PasswordField label="New password again" autoComplete="new-password" value={again} onChange={setAgain} invalid={mismatch} />
      {mismatch && <p className="field-error">The two new passwords differ.</p>}
      <ErrorNote error={change.error} words={{ bad_request: 'The current password is not right.' }} />
      {change.isSuccess && !forced && <Note kind="success">Your password is changed. Your other sessions were signed out.</Note>}
      <Button kind="primary" type="submit" busy={change.isPending}>
        Save the new password
      </Button>
    </form>
  )
}

/** A second factor: the password, then the app's QR code and the backup codes, then a first code to confirm. */
export function TwoFactorSetup({ required = false }: { required?: boolean }) {
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const signedIn = useSignedIn()
  const enable = useMutation(api.auth.enableTwoFactor.mutationOptions())
  const confirm = useMutation(api.auth.verifyTotp.mutationOptions({ onSuccess: signedIn }))
  const secret = enable.data ? (new URL(enable.data.totpURI).searchParams.get('secret') ?? '') : ''
  return (
    <section className="card" aria-labelledby="two-factor-title">
      {required ? <h1 id="two-factor-title">Set up a second factor</h1> : <h2 id="two-factor-title">Set up a second factor</h2>}
      {required && <p>The team requires a second factor of every member. Set yours up to go on.</p>}
      {!enable.data ? (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            enable.mutate({ body: { password } })
          }}
        >
          <p>An authenticator app on your phone (Google Authenticator, 1Password, Authy…) then gives a code at each sign-in.</p>
          <PasswordField label="Your password" autoComplete="current-password" value={password} onChange={setPassword} />
          <ErrorNote error={enable.error} words={{ bad_request: 'The password is not right.' }} />
          <Button kind="primary" type="submit" busy={enable.isPending}>
            Continue
          </Button>
        </form>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            confirm.mutate({ body: { code: code.trim() } })
          }}
        >
          <ol className="steps">
            <li>
              <p>Scan this code with your authenticator app.</p>
              <div className="qr-box">
                <QrCode text={enable.data.totpURI} label="QR code for your authenticator app" size={184} />
                <p className="hint">
                  Or type this key: <code className="secret">{secret}</code>
                </p>
              </div>
            </li>
            <li>
              <p>
                Keep these backup codes somewhere safe: each signs you in once if the phone is lost.{' '}
                <strong>They are shown only now.</strong>
              </p>
              <ul className="codes" aria-label="Backup codes">
                {enable.data.backupCodes.map((backup) => (
                  <li key={backup}>
                    <code>{backup}</code>
                  </li>
                ))}
              </ul>
              <CopyButton text={enable.data.backupCodes.join('\n')} label="Copy the backup codes" />
            </li>
            <li>
              <Field label="The code the app shows now">
                {(props) => (
                  <input
                    {...props}
                    autoComplete="one-time-code"
                    inputMode="numeric"
                    required
                    value={code}
                    onChange={(e) => setCode(e.target.value)}
                  />
                )}
              </Field>
            </li>
          </ol>
          <ErrorNote error={confirm.error} words={{ unauthorized: 'That code is not right, or it has expired. Try the newest one.' }} />
          <Button kind="primary" type="submit" busy={confirm.isPending}>
            Turn on the second factor
          </Button>
        </form>
      )}
    </section>
  )
}

function TwoFactorOff() {
  const [password, setPassword] = useState('')
  const signedIn = useSignedIn()
  const disable = useMutation(api.auth.disableTwoFactor.mutationOptions({ onSuccess: signedIn }))
  return (
    <form
      className="card"
      aria-labelledby="two-factor-off-title"
      onSubmit={(event) => {
        event.preventDefault()
        disable.mutate({ body: { password } })
      }}
    >
      <h2 id="two-factor-off-title">Second factor</h2>
      <p>
        <span className="badge good">On</span> You sign in with a code from your authenticator app.
      </p>
      <PasswordField label="Your password, to turn it off" autoComplete="current-password" value={password} onChange={setPassword} />
      <ErrorNote error={disable.error} words={{ bad_request: 'The password is not right.' }} />
      <Button kind="danger" type="submit" busy={disable.isPending}>
        Turn off the second factor
      </Button>
    </form>
  )
}

export function useSignOut() {
  const queryClient = useQueryClient()
  return useMutation(
    api.auth.signOut.mutationOptions({
      onSettled: () => {
        queryClient.clear()
        void queryClient.invalidateQueries()
      },
    }),
  )
}

export function Account({ me }: { me: StaffMember }) {
  const signOut = useSignOut()
  const fresh = useQuery(api.members.me.queryOptions())
  const member = fresh.data ?? me
  return (
    <>
      <PageHeader
        title="Your account"
        lead={`${member.name} · ${member.email} · ${member.role}`}
        actions={
          <Button onClick={() => signOut.mutate({})} busy={signOut.isPending}>
            Sign out
          </Button>
        }
      />
      <div className="grid two">
        <PasswordChange />
        {member.twoFactorEnabled ? <TwoFactorOff /> : <TwoFactorSetup />}
      </div>
    </>
  )
}
