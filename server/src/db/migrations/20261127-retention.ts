import { Migration } from '@mikro-orm/migrations'

/**
 * Retention: an event may keep its guests' data for its own number of days (null: the instance's
 * RETENTION_DAYS), and keeps anonymous counts of what the purge removed.
 */
export class RetentionSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table event add column retention_days integer null;`)
    this.addSql(`alter table event add column purged_sessions integer not null default 0;`)
    this.addSql(`alter table event add column purged_guests integer not null default 0;`)
    this.addSql(`alter table event add column purged_photos integer not null default 0;`)
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table event drop column purged_photos, drop column purged_guests, drop column purged_sessions, drop column retention_days;`,
    )
  }
}
