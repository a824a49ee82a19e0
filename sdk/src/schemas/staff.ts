import { z } from 'zod'

import { EpochMillis, Id, LAST_MILLISECOND, PathKey, PlainText, Slug } from './common.js'
import { CountryCode, EventBranding, Language, NewEventBranding, NewPrivacyNotice, PrivacyNotice } from './event.js'
import {
  EXAMPLE_AUTH_USER,
  EXAMPLE_IDS,
  EXAMPLE_BOOTH_KEY,
  EXAMPLE_CREATED_BOOTH_KEY,
  EXAMPLE_DELETED,
  EXAMPLE_EVENT_STATS,
  EXAMPLE_MEMBER,
  EXAMPLE_MESSAGE,
  EXAMPLE_PERSON,
  EXAMPLE_SESSION_STATS,
  EXAMPLE_STAFF_EVENT,
  EXAMPLE_STAFF_SESSION,
  EXAMPLE_STAFF_SET,
} from './examples.js'

export const SESSION_STATES = ['active', 'completed', 'cancelled'] as const
export const MESSAGE_CHANNELS = ['email', 'sms'] as const
/**
 * A gallery-link message's state: `pending` (waiting, or between tries), `sent` (the provider took
 * it), then as the provider reports (`delivered`, `bounced` for an email bounce or spam complaint,
 * `undelivered` for an SMS the carrier did not deliver); `suppressed` (not sent: the address is on
 * the suppression list); `failed` (refused, or still failing when its retry time ran out).
 */
export const MESSAGE_STATES = ['pending', 'sent', 'delivered', 'bounced', 'undelivered', 'suppressed', 'failed'] as const

/**
 * What a staff member may do, each role all that the one after it may: `owner` (members and their
 * roles, deletions, guests' data of one person, retention, unscoped booth keys), `manager` (events,
 * sets, booth keys for chosen events, the guest export), `staff` (running events: sessions, resend,
 * statistics). Each staff route declares the least role it needs (docs/api.md, "Roles").
 */
export const STAFF_ROLES = ['owner', 'manager', 'staff'] as const
export const StaffRole = z.enum(STAFF_ROLES)

/** Staff passwords (Better Auth hashes them with scrypt). */
export const PASSWORD_LENGTH = { min: 12, max: 128 } as const

const Name = PlainText.trim().min(1, 'Name is required').max(200)
/** An event's start: no later than the last millisecond of the year 9999. */
const StartAt = EpochMillis.max(LAST_MILLISECOND, 'A start time before the year 10000')

/** How long an event keeps its guests' data, in days after its start. */
const RetentionDays = z.int().min(1).max(3650)

/** How long a kiosk waits untouched before it clears its screen for the next group. */
const KioskIdleSeconds = z.int().min(15).max(600)

/** Optional moments answer `null` when they have not happened. */
const When = EpochMillis.nullable()

// Events and sets

export const StaffSet = z
  .object({
    id: Id,
    slug: Slug,
    name: z.string(),
    createdAt: EpochMillis,
    kioskUrl: z.url().describe("Where this set's kiosk opens (the `KIOSK_URL` template with the event's and the set's slugs)"),
  })
  .meta({ examples: [EXAMPLE_STAFF_SET] })

export const SessionCounts = z.object({ active: z.int(), completed: z.int(), cancelled: z.int() })

export const StaffEvent = z
  .object({
    id: Id,
    slug: Slug,
    name: z.string(),
    startAt: EpochMillis,
    isPrivate: z.boolean().describe('A private event hides its public event page; its session galleries still work'),
    phoneCountry: CountryCode.nullable().describe('Phones typed without a country code are read as from here; null: US'),
    privacyNotice: PrivacyNotice.nullable().describe('The notice guests register under; null: none'),
    listGuestsByDefault: z.boolean().describe('Whether guests are listed on the event page unless they ask not to be'),
    retentionDays: RetentionDays.nullable().describe("Days after its start its guests' data is kept; null: the instance's RETENTION_DAYS"),
    language: Language.nullable().optional().describe("The kiosk's language; null: English"),
    kioskIdleSeconds: KioskIdleSeconds.nullable()
      .optional()
      .describe('Seconds a kiosk waits untouched before it clears its screen; null: 60'),
    branding: EventBranding.optional().describe('How its pages, email and kiosk are dressed (`{}`: not at all)'),
    expiresAt: EpochMillis.describe(
      "When its guests' data is purged: photos, contacts, sessions (anonymous counts stay); a session registered after the start is kept as long after its registration",
    ),
    purged: z
      .object({ sessions: z.int(), guests: z.int(), photos: z.int() })
      .describe('What the purge removed (expired, or cancelled more than a day ago), counted: not in `counts`'),
    createdAt: EpochMillis,
    sets: z.array(StaffSet).describe('Oldest first'),
    counts: z.object({
      sessions: SessionCounts,
      guests: z.int().describe('Guests registered, over every session'),
      photos: z.int().describe('Photos of completed sessions'),
      listed: z
        .int()
        .optional()
        .describe(
          'Live sessions whose every guest may be listed: what the public event page shows, or would show were the event made public (a guest registered while it was private and not asked is not listed)',
        ),
    }),
  })
  .meta({ examples: [EXAMPLE_STAFF_EVENT] })

export const NewEvent = z
  .strictObject({
    slug: Slug.describe('Lowercase words joined by hyphens; unique: a taken slug answers 409'),
    name: Name,
    startAt: StartAt,
    isPrivate: z.boolean().default(true).describe('Private by default: a public event page is a choice'),
    phoneCountry: CountryCode.optional().describe('Phones typed without a country code are read as from here (default US)'),
    privacyNotice: NewPrivacyNotice.optional(),
    listGuestsByDefault: z.boolean().default(true),
    retentionDays: RetentionDays.optional().describe("Default: the instance's RETENTION_DAYS"),
    language: Language.optional(),
    kioskIdleSeconds: KioskIdleSeconds.optional(),
    branding: NewEventBranding.optional(),
  })
  .meta({ examples: [{ slug: 'summer-gala', name: 'Summer Gala', startAt: 1782925200000, isPrivate: true, phoneCountry: 'US' }] })

export const EventChanges = z
  .strictObject({
    slug: Slug,
    name: Name,
    startAt: StartAt,
    isPrivate: z.boolean(),
    phoneCountry: CountryCode.nullable(),
    privacyNotice: NewPrivacyNotice.nullable(),
    listGuestsByDefault: z.boolean(),
    retentionDays: RetentionDays.nullable().describe("Longer or shorter before the purge runs; null: the instance's default"),
    language: Language.nullable(),
    kioskIdleSeconds: KioskIdleSeconds.nullable(),
    branding: NewEventBranding.describe('Replaces the branding as a whole (a field left out is removed; `logo` left out keeps the logo)'),
  })
  .partial()
  .refine((changes) => Object.keys(changes).length > 0, 'Nothing to change')
  .meta({ examples: [{ name: 'Summer Gala 2026', isPrivate: true }] })

export const NewSet = z
  .strictObject({
    slug: Slug.describe('Unique within its event: a taken slug answers 409'),
    name: Name,
  })
  .meta({ examples: [{ slug: 'photo-wall', name: 'Photo Wall' }] })

export const SetChanges = z
  .strictObject({ slug: Slug, name: Name })
  .partial()
  .refine((changes) => Object.keys(changes).length > 0, 'Nothing to change')
  .meta({ examples: [{ name: 'Photo Wall (garden)' }] })

/** `force=true` deletes even while sessions are active (a booth may be mid-shoot). */
export const ForceQuery = z.object({
  force: z.enum(['true', 'false']).optional().describe('`true` deletes even while sessions are active; otherwise that answers 409'),
})

export const Deleted = z
  .object({
    deleted: z.object({
      sessions: z.int(),
      guests: z.int(),
      photos: z.int().describe('Photos removed from storage with their sessions'),
    }),
  })
  .meta({ examples: [EXAMPLE_DELETED] })

// Booth keys

export const StaffBoothKey = z
  .object({
    id: z.string().describe('The public part of the key (`pbk_<id>_…`)'),
    name: z.string(),
    createdAt: EpochMillis,
    lastUsedAt: When.describe('Recorded at most once a minute'),
    revokedAt: When,
    eventIds: z
      .array(z.string())
      .nullable()
      .optional()
      .describe('The events the key works for; `null`: every event (an unscoped key, made by an owner)'),
    unscoped: z.boolean().optional().describe('True for a key that works for every event'),
  })
  .meta({ examples: [EXAMPLE_BOOTH_KEY] })

export const NewBoothKey = z
  .strictObject({
    name: PlainText.trim().min(1, 'Name is required').max(100),
    eventIds: z
      .array(PathKey)
      .min(1)
      .max(100)
      .optional()
      .describe(
        "The events the key may work for: it sees and acts on nothing else (another event's sessions answer 404). Omitted: every event, which only an owner may create",
      ),
  })
  .meta({ examples: [{ name: 'Mirror booth 1', eventIds: [EXAMPLE_IDS.event] }] })

export const CreatedBoothKey = StaffBoothKey.extend({
  key: z.string().describe('The whole key, `pbk_<id>_<secret>`: shown this once, stored only as a hash'),
}).meta({ examples: [EXAMPLE_CREATED_BOOTH_KEY] })

// Sessions and their messages

export const StaffMessage = z
  .object({
    id: Id,
    channel: z.enum(MESSAGE_CHANNELS),
    recipient: z.string().describe('The email address or E.164 phone number'),
    status: z.enum(MESSAGE_STATES),
    attempts: z.int(),
    lastError: z
      .string()
      .nullable()
      .describe(
        "Why it is not delivered: the last send's error, the provider's reason for a bounce or an undelivery, or the suppression's",
      ),
    providerMessageId: z.string().nullable(),
    createdAt: EpochMillis,
    sentAt: When,
    deliveredAt: When.optional().describe('When the provider reported it delivered (its own time)'),
  })
  .meta({ examples: [EXAMPLE_MESSAGE] })

export const StaffGuest = z.object({
  id: Id,
  name: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string().nullable().describe('Masked for the staff role (`a…@example.org`): see `contactMasked`'),
  phone: z.string().nullable().describe('Masked for the staff role (`+…71`): see `contactMasked`'),
  contactMasked: z
    .boolean()
    .optional()
    .describe(
      'True when `email` and `phone` are masked: the staff role sees them so; `GET /staff/guests/{guestId}/contact` shows one guest’s in full, recorded in the audit trail. Managers and owners see them in full, each read recorded with its count',
    ),
  messages: z.array(StaffMessage).describe('Gallery-link messages to this guest, oldest first'),
})

/** One guest's contact details in full, for the staff role when a resend needs them. */
export const GuestContact = z
  .object({ email: z.string().nullable(), phone: z.string().nullable() })
  .meta({ examples: [{ email: 'ada@example.org', phone: '+14155552671' }] })

export const PhotoCopiesState = z
  .object({
    queued: z.int().describe('Photos whose copies are still being made (seconds after completion)'),
    ready: z.int().describe('Photos served from their copies: upright, without location or camera tags, sized for phones'),
    failed: z
      .array(z.object({ photoId: Id, position: z.int().min(1).describe('1-based place in gallery order'), reason: z.string() }))
      .describe(
        'Photos whose display copies could not be made, and why: guests get the full-size photo (stripped of its metadata) instead',
      ),
    legacy: z.int().describe('Photos completed before copies existed, served as uploaded until `pnpm admin photos make-copies` runs'),
  })
  .describe("Where the session's photo copies stand")

/** Which booth holds an active session, and until when: out of the other booths' queues meanwhile. */
export const StaffSessionClaim = z.object({
  boothKeyId: z.string(),
  boothName: z.string().describe("The booth key's name"),
  holder: z.string().nullable().describe('The name the booth gave itself (booths sharing a key), or null'),
  claimedAt: EpochMillis,
  expiresAt: EpochMillis,
})

export const StaffSession = z
  .object({
    id: Id,
    setId: Id,
    label: z.string(),
    status: z.enum(SESSION_STATES),
    photoCount: z.int(),
    galleryUrl: z.url(),
    createdAt: EpochMillis,
    completedAt: When,
    cancelledAt: When,
    guests: z.array(StaffGuest),
    copies: PhotoCopiesState.optional().describe('For a session with photos'),
    claim: StaffSessionClaim.optional().describe('For an active session a booth holds now (`POST /booth/sets/{setId}/claims`)'),
  })
  .meta({ examples: [EXAMPLE_STAFF_SESSION] })

export const SessionFilter = z.object({
  eventId: PathKey.meta({ examples: [EXAMPLE_IDS.event] }),
  setId: PathKey.optional().describe('Only this set’s sessions'),
  status: z.enum(SESSION_STATES).optional(),
  cursor: z.string().max(200).optional().describe('`nextCursor` of the previous page'),
  // A number to the SDK's callers (`'fifty'` does not compile); the query's text is coerced on the way in.
  limit: z.coerce.number<number>().int().min(1).max(100).default(50),
})

export const SessionPage = z
  .object({
    sessions: z.array(StaffSession).describe('Newest first'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last'),
  })
  .meta({ examples: [{ sessions: [EXAMPLE_STAFF_SESSION], nextCursor: null }] })

export const Resent = z
  .object({
    queued: z.int().describe('Messages queued now; a guest and channel already waiting, or sent within the last minute, is skipped'),
    suppressed: z
      .int()
      .describe(
        'Messages not sent because their address is on the suppression list (a hard bounce, a spam complaint, an SMS STOP): recorded as `suppressed` on the guest',
      ),
  })
  .meta({ examples: [{ queued: 1, suppressed: 1 }] })

export const Retried = z
  .object({
    retried: z
      .int()
      .describe(
        'Failed messages made pending and due now: the newest failed one per guest and channel, unless that guest and channel already has one waiting',
      ),
  })
  .meta({ examples: [{ retried: 3 }] })

// Statistics

export const ShareCounts = z.object({
  total: z.int(),
  facebook: z.int(),
  instagram: z.int(),
  tiktok: z.int(),
  copy: z.int(),
  native: z.int(),
})

export const MessageCounts = z.object({ pending: z.int(), sent: z.int(), failed: z.int() })

export const SessionStats = z
  .object({
    views: z.int(),
    shares: ShareCounts,
    downloads: z.int(),
    zips: z.int(),
    guests: z.int(),
    messages: MessageCounts,
  })
  .meta({ examples: [EXAMPLE_SESSION_STATS] })

export const HourStats = z.object({
  hour: EpochMillis.describe('Start of the hour (UTC)'),
  views: z.int(),
  shares: z.int(),
  downloads: z.int(),
  zips: z.int(),
  sessions: z.int().describe('Sessions registered in this hour'),
})

export const EventStats = SessionStats.extend({
  sessions: SessionCounts,
  hourly: z.array(HourStats).describe('Every hour from the first to the last with activity, in order, empty hours included'),
}).meta({ examples: [EXAMPLE_EVENT_STATS] })

// Staff members

export const StaffMember = z
  .object({
    id: z.string(),
    email: z.email(),
    name: z.string(),
    role: StaffRole,
    twoFactorEnabled: z.boolean().optional().describe('Whether they sign in with a second factor'),
    createdAt: EpochMillis,
  })
  .meta({ examples: [EXAMPLE_MEMBER] })

export const NewStaffMember = z
  .strictObject({
    email: z.email().max(254),
    name: Name,
    password: z
      .string()
      .min(PASSWORD_LENGTH.min)
      .max(PASSWORD_LENGTH.max)
      .optional()
      .describe('Omitted: a one-time password is made and answered once'),
    role: StaffRole.default('staff').describe('What they may do; `staff` unless said'),
  })
  .meta({ examples: [{ email: 'grace@example.org', name: 'Grace Hopper', role: 'manager' }] })

export const RoleChange = z.strictObject({ role: StaffRole }).meta({ examples: [{ role: 'owner' }] })

export const InvitedStaffMember = z
  .object({
    member: StaffMember,
    password: z.string().optional().describe('The one-time password, when none was given: shown this once'),
  })
  .meta({ examples: [{ member: EXAMPLE_MEMBER, password: 'tV9k-2mQx-8LrB-4nZp' }] })

// Sign-in (Better Auth, under /api/auth)

// Better Auth checks these bodies itself and ignores fields it does not know: the document says so.
export const SignIn = z
  .object({
    email: z.email(),
    password: z.string().min(1),
    rememberMe: z.boolean().optional().describe('false: the session ends with the browser'),
  })
  .meta({ examples: [{ email: 'grace@example.org', password: 'amber walrus lantern fjord' }] })

export const PasswordChange = z
  .object({
    currentPassword: z.string().min(1),
    newPassword: z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max),
    revokeOtherSessions: z.boolean().optional().describe('Ignored: every other session of this member ends, whatever is sent'),
  })
  .meta({ examples: [{ currentPassword: 'tV9k-2mQx-8LrB-4nZp', newPassword: 'amber walrus lantern fjord', revokeOtherSessions: true }] })

const AuthUser = z.looseObject({ id: z.string(), email: z.string(), name: z.string() })

export const SignedIn = z
  .looseObject({
    redirect: z.boolean().optional(),
    user: AuthUser.optional().describe('The member signed in; absent when a second factor is asked for'),
    twoFactorRedirect: z
      .literal(true)
      .optional()
      .describe(
        'The member has a second factor: no session yet. Send its code to `POST /api/auth/two-factor/verify-totp` (or a backup code to `verify-backup-code`) within 10 minutes, with the cookie this answer set',
      ),
    twoFactorMethods: z.array(z.string()).optional(),
  })
  .meta({ examples: [{ redirect: false, user: EXAMPLE_AUTH_USER }] })

export const TwoFactorPassword = z
  .object({ password: z.string().min(1).max(PASSWORD_LENGTH.max) })
  .meta({ examples: [{ password: 'pale violet kettle orbit' }] })

export const TwoFactorEnabling = z
  .looseObject({
    totpURI: z.string().describe('`otpauth://totp/…`: show it as a QR code for an authenticator app'),
    backupCodes: z.array(z.string()).describe('One-time codes for when the app is lost: shown this once'),
  })
  .meta({
    examples: [
      {
        totpURI: 'otpauth://totp/Photo%20booth%20staff:grace%40example.org?secret=JBSWY3DPEHPK3PXP&issuer=Photo%20booth%20staff',
        backupCodes: ['a1b2c-3d4e5'],
      },
    ],
  })

export const TwoFactorCode = z
  .object({
    code: z.string().min(1).max(64),
    trustDevice: z.boolean().optional().describe('Skip the second factor on this browser for 30 days'),
  })
  .meta({ examples: [{ code: '123456' }] })

export const TwoFactorDone = z
  .looseObject({ user: AuthUser.optional(), status: z.boolean().optional() })
  .meta({ examples: [{ user: EXAMPLE_AUTH_USER }] })

export const TeamSettings = z
  .object({
    requireTwoFactor: z
      .boolean()
      .describe(
        'Every member must have a second factor: one without answers 403 on every staff route but `GET /staff/me` until they set it up',
      ),
  })
  .meta({ examples: [{ requireTwoFactor: true }] })

export const PasswordChanged = z.looseObject({ user: AuthUser }).meta({ examples: [{ user: EXAMPLE_AUTH_USER }] })

export const CurrentSession = z
  .looseObject({
    session: z.looseObject({ id: z.string(), expiresAt: z.string().describe('ISO 8601') }),
    user: AuthUser,
  })
  .nullable()
  .meta({
    examples: [
      { session: { id: 'kL4mN7pQ0rS3tU6vW9xY2zA5bC8dE1fG', expiresAt: '2026-07-08T18:04:12.000Z' }, user: EXAMPLE_AUTH_USER },
      null,
    ],
  })

// People: one guest across events (a customer: linked by email, then by phone)

export const PersonQuery = z
  .strictObject({
    email: PlainText.trim().min(3).max(254).optional().describe('An address, whatever its case'),
    phone: PlainText.trim()
      .min(3)
      .max(40)
      .optional()
      .describe('A phone number as typed; read as E.164, or as a US number without a country code'),
  })
  .refine((query) => (query.email === undefined) !== (query.phone === undefined), 'Give an email or a phone, one of them')

export const Person = z
  .object({
    id: Id.describe('The customer: what export and erase take'),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    name: z.string(),
    registrations: z.int().describe('Guest rows of theirs, over every event'),
    events: z.array(z.object({ id: Id, slug: Slug, name: z.string() })).describe('The events they registered at, newest start first'),
  })
  .meta({ examples: [EXAMPLE_PERSON] })

export const PersonRegistration = z.object({
  guestId: Id,
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  marketingOptIn: z.boolean(),
  agreedToListing: z.boolean().describe('True only when they were asked and said yes'),
  listingChoice: z
    .enum(['yes', 'no', 'not asked'])
    .optional()
    .describe(
      'What they chose at the kiosk about the event page; `not asked` when the kiosk did not ask (the default then applied is no choice)',
    ),
  listedOnEventPage: z.boolean().optional().describe('Whether their session may be shown on the event page on their account'),
  privacyNoticeVersion: z.string().nullable(),
  registeredAt: EpochMillis,
  event: z.object({ id: Id, slug: Slug, name: z.string(), startAt: EpochMillis }),
  set: z.object({ id: Id, slug: Slug, name: z.string() }),
  session: z.object({
    id: Id,
    status: z.enum(SESSION_STATES),
    galleryUrl: z.url(),
    photos: z.int(),
  }),
  messages: z.array(StaffMessage).describe('The gallery links sent to them, oldest first, with their states'),
})

export const PersonExport = z.object({
  person: z.object({ id: Id, email: z.string().nullable(), phone: z.string().nullable(), name: z.string(), createdAt: EpochMillis }),
  registrations: z
    .array(PersonRegistration)
    .describe("Oldest first; nothing of the other guests of their sessions (not even the session's label, made of their names)"),
  exportedAt: EpochMillis,
})

export const Erased = z
  .object({
    erased: z.object({
      sessions: z.int().describe('Sessions deleted, photos included: those where they were the only guest'),
      guests: z.int().describe('Guest rows removed: theirs'),
      photos: z.int().describe('Photos deleted with those sessions'),
    }),
  })
  .meta({ examples: [{ erased: { sessions: 1, guests: 2, photos: 4 } }] })
