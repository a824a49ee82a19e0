import { DefaultLogger, type LogContext, type LoggerOptions } from '@mikro-orm/core'
import { Migrator } from '@mikro-orm/migrations'
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql'

import { AuditEventSchema } from './entities/audit-event.entity.js'
import { BoothKeySchema } from './entities/booth-key.entity.js'
import { UploadGrantSchema } from './entities/upload-grant.entity.js'
import { SessionClaimSchema } from './entities/session-claim.entity.js'
import { UsedTotpSchema } from './entities/used-totp.entity.js'
import { TeamSettingsSchema } from './entities/team-settings.entity.js'
import { CustomerSchema } from './entities/customer.entity.js'
import { OutboxMessageSchema } from './entities/outbox-message.entity.js'
import { EventSetSchema } from './entities/event-set.entity.js'
import { EventSchema } from './entities/event.entity.js'
import { EventPrivacyNoticeSchema } from './entities/event-privacy-notice.entity.js'
import { IdempotencyKeySchema } from './entities/idempotency-key.entity.js'
import { PhotoSchema } from './entities/photo.entity.js'
import { SuppressionSchema } from './entities/suppression.entity.js'
import { WebhookReplaySchema } from './entities/webhook-replay.entity.js'
import { SessionGuestSchema } from './entities/session-guest.entity.js'
import { SessionSchema } from './entities/session.entity.js'
import { AUTH_TABLES } from '../modules/staff/index.js'
import { StorageDeletionSchema } from './entities/storage-deletion.entity.js'
import { TrackingEventSchema } from './entities/tracking-event.entity.js'
import { redact, type Logger } from '../logger.js'
import { DEFAULT_DATABASE_TIMEOUTS, pgTimeouts, type DatabaseTimeouts } from './timeouts.js'
import { lockFor } from './lock.js'
import { setRowChecks, type RowChecks } from './query.js'
import { BoothSchema } from './migrations/20261121-booth.js'
import { InitialSchema } from './migrations/20261121-initial.js'
import { PhotoEtagSchema } from './migrations/20261123-photo-etag.js'
import { GalleryVersionsSchema } from './migrations/20261125-gallery-versions.js'
import { IdempotencySchema } from './migrations/20261125-idempotency.js'
import { OutboxChannelDueSchema } from './migrations/20261125-outbox-channel-due.js'
import { OutboxRetrySinceSchema } from './migrations/20261126-outbox-retry-since.js'
import { PhotoCopiesSchema } from './migrations/20261126-photo-copies.js'
import { GuestConsentSchema } from './migrations/20261127-guest-consent.js'
import { RetentionSchema } from './migrations/20261127-retention.js'
import { DeliveryReceiptsSchema } from './migrations/20261128-delivery-receipts.js'
import { StaffRolesSchema } from './migrations/20261128-staff-roles.js'
import { AuditSchema } from './migrations/20261128-audit.js'
import { BoothKeyScopeSchema } from './migrations/20261128-booth-key-scope.js'
import { InvitedPasswordsSchema } from './migrations/20261128-invited-passwords.js'
import { UploadGrantsSchema } from './migrations/20261128-upload-grants.js'
import { SessionClaimsSchema } from './migrations/20261201-session-claims.js'
import { EventBrandingSchema } from './migrations/20261130-event-branding.js'
import { StaffUsedTotpSchema } from './migrations/20261130-staff-used-totp.js'
import { WebhookReplaysSchema } from './migrations/20261202-webhook-replays.js'
import { ListingChoiceSchema } from './migrations/20261130-listing-choice.js'
import { PersonLookupSchema } from './migrations/20261129-person-lookup.js'
import { PrivacyNoticesSchema } from './migrations/20261130-privacy-notices.js'
import { TwoFactorSchema } from './migrations/20261128-two-factor.js'
import { StaffSchema } from './migrations/20261125-staff.js'
import { TrackingSchema } from './migrations/20261121-tracking.js'

export type Orm = MikroORM

/** Every query the ORM sends, for tests that bound round trips. */
export type QueryListener = (sql: string) => void

class ListeningLogger extends DefaultLogger {
  constructor(
    options: LoggerOptions,
    private readonly listener: QueryListener,
  ) {
    super(options)
  }

  override logQuery(context: { query: string } & LogContext): void {
    this.listener(context.query)
    super.logQuery(context)
  }
}

export type OrmOptions = {
  onQuery?: QueryListener
  /** The service's by default; a command run by hand (a long migration) may allow more. */
  timeouts?: DatabaseTimeouts
  /** Where the driver's own warnings go (knex: "Connection Error"); the log stream stays JSON. */
  logger?: Pick<Logger, 'warn'>
  /** How many rows of each raw query `run` checks (db/query.ts): every one unless told. */
  rowChecks?: RowChecks
}

export async function openOrm(databaseUrl: string, options: OrmOptions = {}): Promise<Orm> {
  const { onQuery, timeouts = DEFAULT_DATABASE_TIMEOUTS, logger, rowChecks = 'every' } = options
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    entities: [
      EventSchema,
      EventSetSchema,
      CustomerSchema,
      SessionSchema,
      SessionGuestSchema,
      PhotoSchema,
      BoothKeySchema,
      OutboxMessageSchema,
      TrackingEventSchema,
      StorageDeletionSchema,
      IdempotencyKeySchema,
      SuppressionSchema,
      AuditEventSchema,
      UploadGrantSchema,
      SessionClaimSchema,
      TeamSettingsSchema,
      UsedTotpSchema,
      EventPrivacyNoticeSchema,
      WebhookReplaySchema,
    ],
    extensions: [Migrator],
    migrations: {
      // Listed, not globbed: the same list works from TypeScript sources and from a bundle.
      migrationsList: [
        { name: '20261121-initial', class: InitialSchema },
        { name: '20261121-booth', class: BoothSchema },
        { name: '20261121-tracking', class: TrackingSchema },
        { name: '20261123-photo-etag', class: PhotoEtagSchema },
        { name: '20261125-staff', class: StaffSchema },
        { name: '20261125-idempotency', class: IdempotencySchema },
        { name: '20261125-gallery-versions', class: GalleryVersionsSchema },
        { name: '20261125-outbox-channel-due', class: OutboxChannelDueSchema },
        { name: '20261126-photo-copies', class: PhotoCopiesSchema },
        { name: '20261126-outbox-retry-since', class: OutboxRetrySinceSchema },
        { name: '20261127-guest-consent', class: GuestConsentSchema },
        { name: '20261127-retention', class: RetentionSchema },
        { name: '20261128-delivery-receipts', class: DeliveryReceiptsSchema },
        { name: '20261128-staff-roles', class: StaffRolesSchema },
        { name: '20261128-audit', class: AuditSchema },
        { name: '20261128-booth-key-scope', class: BoothKeyScopeSchema },
        { name: '20261128-invited-passwords', class: InvitedPasswordsSchema },
        { name: '20261128-upload-grants', class: UploadGrantsSchema },
        { name: '20261129-person-lookup', class: PersonLookupSchema },
        { name: '20261128-two-factor', class: TwoFactorSchema },
        { name: '20261130-event-branding', class: EventBrandingSchema },
        { name: '20261130-staff-used-totp', class: StaffUsedTotpSchema },
        { name: '20261130-listing-choice', class: ListingChoiceSchema },
        { name: '20261130-privacy-notices', class: PrivacyNoticesSchema },
        { name: '20261201-session-claims', class: SessionClaimsSchema },
        { name: '20261202-webhook-replays', class: WebhookReplaysSchema },
      ],
      silent: true,
      transactional: true,
      allOrNothing: true,
    },
    // Better Auth's tables are its own (modules/staff/auth.ts): no entity declares them, and the schema
    // diff would otherwise propose dropping them.
    schemaGenerator: { skipTables: AUTH_TABLES },
    // Every request forks its own entity manager; a slip onto the global one is a bug.
    allowGlobalContext: false,
    pool: { acquireTimeoutMillis: timeouts.acquireMs },
    driverOptions: {
      connection: pgTimeouts(timeouts),
      // A failed statement's error names it with its placeholders, never with the guests' values in it.
      compileSqlOnError: false,
      log: {
        warn: (message: unknown) => (logger ? logger.warn(`database driver: ${redact(String(message))}`) : undefined),
        deprecate: () => {},
      },
    },
    ...(onQuery ? { loggerFactory: (loggerOptions: LoggerOptions) => new ListeningLogger(loggerOptions, onQuery) } : {}),
  })
  setRowChecks(orm, rowChecks)
  return orm
}

/** Applies pending migrations, one instance at a time when several start together; answers their names. */
export async function migrate(orm: Orm): Promise<string[]> {
  // The lock is held by this transaction while the migrator runs each migration in its own.
  return orm.em.fork().transactional(async (tx) => {
    await lockFor(tx, 'photobooth:migrations')
    return (await orm.getMigrator().up()).map((migration) => migration.name)
  })
}

/** The migrations this database has not had yet. */
export async function pendingMigrations(orm: Orm): Promise<string[]> {
  return (await orm.getMigrator().getPendingMigrations()).map((migration) => migration.name)
}
