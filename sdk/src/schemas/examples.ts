/**
 * Example values of the schemas, for the OpenAPI document (JSON Schema `examples`, through zod's
 * `.meta()`): one consistent event, set, session and gallery, as a local instance answers them
 * (`PUBLIC_URL` http://localhost:3000). Documentation only: no schema's validation depends on them.
 */
const BASE = 'http://localhost:3000'

export const EXAMPLE_IDS = {
  event: 'q7Vd2mXcR0a9LkT3pZs1Nw',
  set: 'H4nB8yKe2QfW6tJr0uLxYg',
  session: 'Zt5oP1vC9sDk3MwE7aRgQh',
  photo: 'f2LhN6cV0bXq8JyT4kWmSe',
  guest: 'Jm3Ke8QpL2vN0rTz6YwBxA',
  message: 'P9sD1fG4hJ7kL0zX3cV6bN',
  member: 'wQ2eR5tY8uI1oP4aS7dF0g',
  boothKey: 'a1B2c3D4e5F6',
} as const

const { event, set, session, photo, guest, message, member, boothKey } = EXAMPLE_IDS

export const EXAMPLE_EVENT = { id: event, slug: 'summer-gala', name: 'Summer Gala' }
export const EXAMPLE_GALLERY_EVENT = { ...EXAMPLE_EVENT, startAt: 1782925200000 }
export const EXAMPLE_SET = { id: set, slug: 'photo-wall', name: 'Photo Wall' }
export const EXAMPLE_PHOTO_KEY = `sessions/${session}/${photo}.jpg`
const EXAMPLE_COPIES = `${BASE}/photos/sessions/${session}/copies`
export const EXAMPLE_PHOTO = {
  id: photo,
  url: `${EXAMPLE_COPIES}/${photo}.jpg`,
  width: 1800,
  height: 1200,
  copies: [
    { url: `${EXAMPLE_COPIES}/${photo}-480.webp`, width: 480, height: 320, type: 'image/webp' as const },
    { url: `${EXAMPLE_COPIES}/${photo}-960.webp`, width: 960, height: 640, type: 'image/webp' as const },
    { url: `${EXAMPLE_COPIES}/${photo}-1600.webp`, width: 1600, height: 1067, type: 'image/webp' as const },
  ],
}
export const EXAMPLE_PREVIEW = {
  url: `${EXAMPLE_COPIES}/preview.jpg`,
  width: 1200 as const,
  height: 630 as const,
  type: 'image/jpeg' as const,
}
export const EXAMPLE_GUEST = { name: 'Ada Lovelace', email: 'ada@example.org', phone: '(415) 555-2671' }
export const EXAMPLE_GALLERY_URL = `${BASE}/g/${session}`
export const EXAMPLE_CREATED_AT = 1782929052000
export const EXAMPLE_COMPLETED_AT = 1782929380000

export const EXAMPLE_UPLOAD_TARGET = {
  key: EXAMPLE_PHOTO_KEY,
  url: `${BASE}/photos/${EXAMPLE_PHOTO_KEY}?expires=1782929952000&signature=2u0bJmZ1xK3q`,
  method: 'PUT',
  headers: { 'Content-Type': 'image/jpeg', 'If-None-Match': '*' },
  expiresAt: 1782929952000,
}

export const EXAMPLE_GALLERY_SESSION = { id: session, label: 'Ada & Grace', createdAt: EXAMPLE_CREATED_AT, photos: [EXAMPLE_PHOTO] }

export const EXAMPLE_STAFF_SET = {
  ...EXAMPLE_SET,
  createdAt: 1781947800000,
  kioskUrl: `${BASE}/kiosk/summer-gala/photo-wall`,
}

export const EXAMPLE_STAFF_EVENT = {
  ...EXAMPLE_GALLERY_EVENT,
  isPrivate: true,
  phoneCountry: null,
  privacyNotice: { version: '2026-06', url: 'https://booths.example.com/privacy' },
  listGuestsByDefault: true,
  retentionDays: null,
  expiresAt: 1790701200000,
  purged: { sessions: 0, guests: 0, photos: 0 },
  createdAt: 1781947800000,
  sets: [EXAMPLE_STAFF_SET],
  counts: { sessions: { active: 1, completed: 12, cancelled: 0 }, guests: 27, photos: 96 },
}

export const EXAMPLE_DELETED = { deleted: { sessions: 13, guests: 27, photos: 96 } }

export const EXAMPLE_BOOTH_KEY = {
  id: boothKey,
  name: 'Mirror booth 1',
  createdAt: 1781947800000,
  lastUsedAt: 1782929052000,
  revokedAt: null,
  eventIds: [event],
  unscoped: false,
}
export const EXAMPLE_CREATED_BOOTH_KEY = {
  ...EXAMPLE_BOOTH_KEY,
  lastUsedAt: null,
  key: `pbk_${boothKey}_Xk3nV8qZ1rT5wY0bC7mP2sD9fG4hJ6lA1eR3tU8iO0p`,
}

export const EXAMPLE_MESSAGE = {
  id: message,
  channel: 'email',
  recipient: 'ada@example.org',
  status: 'sent',
  attempts: 1,
  lastError: null,
  providerMessageId: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817',
  createdAt: EXAMPLE_COMPLETED_AT,
  sentAt: EXAMPLE_COMPLETED_AT + 2_000,
}

export const EXAMPLE_STAFF_GUEST = {
  id: guest,
  name: 'Ada Lovelace',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.org',
  phone: '+14155552671',
  messages: [EXAMPLE_MESSAGE],
}

export const EXAMPLE_STAFF_SESSION = {
  id: session,
  setId: set,
  label: 'Ada Lovelace',
  status: 'completed',
  photoCount: 1,
  galleryUrl: EXAMPLE_GALLERY_URL,
  createdAt: EXAMPLE_CREATED_AT,
  completedAt: EXAMPLE_COMPLETED_AT,
  cancelledAt: null,
  guests: [EXAMPLE_STAFF_GUEST],
  copies: { queued: 0, ready: 1, failed: [], legacy: 0 },
}

const SHARES = { total: 5, facebook: 1, instagram: 2, tiktok: 0, copy: 1, native: 1 }

export const EXAMPLE_SESSION_STATS = {
  views: 14,
  shares: SHARES,
  downloads: 3,
  zips: 1,
  guests: 2,
  messages: { pending: 0, sent: 4, failed: 0 },
}

export const EXAMPLE_EVENT_STATS = {
  ...EXAMPLE_SESSION_STATS,
  guests: 27,
  messages: { pending: 1, sent: 50, failed: 2 },
  sessions: { active: 1, completed: 12, cancelled: 0 },
  hourly: [
    { hour: 1782928800000, views: 9, shares: 3, downloads: 2, zips: 1, sessions: 8 },
    { hour: 1782932400000, views: 5, shares: 2, downloads: 1, zips: 0, sessions: 5 },
  ],
}

export const EXAMPLE_MEMBER = { id: member, email: 'grace@example.org', name: 'Grace Hopper', role: 'manager', createdAt: 1781947800000 }
export const EXAMPLE_AUTH_USER = { id: member, email: 'grace@example.org', name: 'Grace Hopper' }

export const EXAMPLE_PERSON = {
  id: 'cU5cNq1RZTaO2rUq9bS8fA',
  email: 'ada@example.org',
  phone: null,
  name: 'Ada Lovelace',
  registrations: 2,
  events: [{ id: event, slug: 'summer-gala', name: 'Summer Gala' }],
}

export const EXAMPLE_PERSON_EXPORT = {
  person: { id: EXAMPLE_PERSON.id, email: 'ada@example.org', phone: null, name: 'Ada Lovelace', createdAt: 1782925800000 },
  registrations: [
    {
      guestId: 'gV2m8QkB4YxH1sNp7TzR3w',
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      phone: null,
      marketingOptIn: false,
      agreedToListing: true,
      privacyNoticeVersion: '2026-06',
      registeredAt: 1782925800000,
      event: { id: event, slug: 'summer-gala', name: 'Summer Gala', startAt: 1782925200000 },
      set: { id: set, slug: 'photo-wall', name: 'Photo Wall' },
      session: { id: session, status: 'completed', galleryUrl: EXAMPLE_GALLERY_URL, photos: 4 },
      messages: [EXAMPLE_MESSAGE],
    },
  ],
  exportedAt: 1790000000000,
}
