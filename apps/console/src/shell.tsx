/**
 * Who is signed in decides what shows: the sign-in, a password or second factor the service asks
 * for first, then the console, its menu holding only what the member's role may use.
 */
import { useQuery } from '@tanstack/react-query'
import { useEffect, useState, type ReactNode } from 'react'
import { Link, Redirect, Route, Switch, useLocation, useRoute } from 'wouter'

import { api, type Role, type StaffMember } from './api.js'
import { Account, Brand, PasswordChange, SignIn, TwoFactorSetup, useSignOut } from './auth.js'
import { AuditTrail } from './audit.js'
import { BoothKeys } from './booth-keys.js'
import { errorCode } from './errors.js'
import { EventPage } from './event-page.js'
import { EventList, NewEvent } from './events.js'
import { People } from './people.js'
import { may, type ConsoleRoute } from './roles.js'
import { Suppressions } from './suppressions.js'
import { Team } from './team.js'
import { Button, ErrorNote, Loading } from './ui.js'

export function Console() {
  const me = useQuery(api.members.me.queryOptions())
  if (me.data) return <Gate me={me.data} />
  if (me.error && errorCode(me.error) === 'unauthorized') return <SignIn />
  if (me.error)
    return (
      <main className="auth-page" id="main">
        <div className="auth-card">
          <Brand />
          <ErrorNote error={me.error}>
            <Button onClick={() => void me.refetch()} busy={me.isFetching}>
              Try again
            </Button>
          </ErrorNote>
        </div>
      </main>
    )
  return (
    <main className="auth-page" id="main">
      <Loading what="the console" />
    </main>
  )
}

/** The service refuses every staff route but `me` until the member changes an invited password or sets up a required second factor. */
function Gate({ me }: { me: StaffMember }) {
  const events = useQuery(api.events.list.queryOptions())
  const code = errorCode(events.error)
  if (code === 'password_change_required' || code === 'two_factor_required')
    return (
      <main className="auth-page" id="main">
        <div className="auth-card wide">
          <Brand />
          {code === 'password_change_required' ? <PasswordChange forced /> : <TwoFactorSetup required />}
        </div>
      </main>
    )
  return <Layout me={me} />
}

type NavItem = { href: string; label: string; needs: ConsoleRoute; icon: ReactNode }

const icon = (d: string) => (
  <svg
    viewBox="0 0 24 24"
    width="20"
    height="20"
    aria-hidden="true"
    fill="none"
    stroke="currentColor"
    strokeWidth="1.8"
    strokeLinecap="round"
    strokeLinejoin="round"
  >
    <path d={d} />
  </svg>
)

const NAV: NavItem[] = [
  { href: '/', label: 'Events', needs: 'events.list', icon: icon('M4 6h16M4 6v13h16V6M8 3v5M16 3v5M4 11h16') },
  {
    href: '/booth-keys',
    label: 'Booth keys',
    needs: 'boothKeys.list',
    icon: icon('M14 10a4 4 0 1 0-3.5 4L9 15.5V18H6.5v2.5H3V17l6.5-6.5A4 4 0 0 0 14 10zM16 8h.01'),
  },
  {
    href: '/suppressions',
    label: 'Opt-outs',
    needs: 'messages.findSuppressions',
    icon: icon('M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM5.6 5.6l12.8 12.8'),
  },
  { href: '/people', label: 'People', needs: 'people.find', icon: icon('M16 19a4 4 0 0 0-8 0M12 12a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7z') },
  {
    href: '/team',
    label: 'Team',
    needs: 'members.list',
    icon: icon('M17 19a4 4 0 0 0-7.5-2M14 19H3a4.5 4.5 0 0 1 9 0M7.5 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM16.5 11a2.5 2.5 0 1 0 0-5'),
  },
  { href: '/audit', label: 'Audit trail', needs: 'audit.list', icon: icon('M6 3h9l4 4v14H6zM14 3v5h5M9 12h7M9 16h7') },
]

function NavLink({ href, children, onClick }: { href: string; children: ReactNode; onClick?: () => void }) {
  const [exact] = useRoute(href)
  const [nested] = useRoute(`${href === '/' ? '/events' : href}/*?`)
  const active = exact || nested
  return (
    <Link href={href} className={`nav-link${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined} onClick={onClick}>
      {children}
    </Link>
  )
}

function Layout({ me }: { me: StaffMember }) {
  const [open, setOpen] = useState(false)
  const [location] = useLocation()
  const signOut = useSignOut()
  // A new screen starts at its top, with the menu closed (a phone's menu covers it).
  useEffect(() => {
    setOpen(false)
    window.scrollTo(0, 0)
  }, [location])
  const items = NAV.filter((item) => may(me.role, item.needs))
  return (
    <div className="layout">
      <a className="skip" href="#main">
        Skip to the content
      </a>
      <header className="sidebar">
        <div className="sidebar-top">
          <Link href="/" className="brand-link" aria-label="Booth Console: events">
            <Brand />
          </Link>
          <button type="button" className="menu-button" aria-expanded={open} aria-controls="menu" onClick={() => setOpen(!open)}>
            Menu
          </button>
        </div>
        <nav id="menu" aria-label="Console" className={open ? 'open' : undefined}>
          <ul>
            {items.map((item) => (
              <li key={item.href}>
                <NavLink href={item.href}>
                  {item.icon}
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
          <div className="member">
            <NavLink href="/account">
              <span className="avatar" aria-hidden="true">
                {initials(me.name)}
              </span>
              <span className="member-name">
                {me.name}
                <small>{ROLE_NAMES[me.role]}</small>
              </span>
            </NavLink>
            <Button kind="quiet" onClick={() => signOut.mutate({})} busy={signOut.isPending}>
              Sign out
            </Button>
          </div>
        </nav>
      </header>
      <main id="main" className="content" tabIndex={-1}>
        <Screens me={me} />
      </main>
    </div>
  )
}

export const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', manager: 'Manager', staff: 'Staff' }

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0]!.toUpperCase())
    .join('')

/** Each screen, shown only to a role that may use it (a link typed by hand to another goes back to the events). */
function Screens({ me }: { me: StaffMember }) {
  const allowed = (route: ConsoleRoute, screen: ReactNode) => (may(me.role, route) ? screen : <Redirect to="/" replace />)
  return (
    <Switch>
      <Route path="/">{() => <EventList me={me} />}</Route>
      <Route path="/events/new">{() => allowed('events.create', <NewEvent me={me} />)}</Route>
      <Route path="/events/:eventId/*?">{(params) => <EventPage me={me} eventId={params.eventId} />}</Route>
      <Route path="/booth-keys">{() => allowed('boothKeys.list', <BoothKeys me={me} />)}</Route>
      <Route path="/suppressions">{() => <Suppressions me={me} />}</Route>
      <Route path="/people">{() => allowed('people.find', <People />)}</Route>
      <Route path="/team">{() => allowed('members.list', <Team me={me} />)}</Route>
      <Route path="/audit">{() => allowed('audit.list', <AuditTrail />)}</Route>
      <Route path="/account">{() => <Account me={me} />}</Route>
      <Route>
        <Redirect to="/" replace />
      </Route>
    </Switch>
  )
}
