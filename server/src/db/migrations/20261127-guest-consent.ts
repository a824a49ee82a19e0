import { Migration } from '@mikro-orm/migrations'

/**
 * What guests agreed to, and where an event's guests' phones are from: the event's privacy notice
 * (its version, and a link or a text), its country for numbers typed without one, and whether its
 * guests are listed on its page unless they say otherwise; each guest's marketing opt-in, listing
 * choice, and the notice version and time they registered under; a session is listed on the event
 * page only when every guest of it agreed. Existing rows keep what they had: listed, no opt-in.
 */
export class GuestConsentSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table event add column phone_country text null;`)
    this.addSql(`alter table event add column privacy_notice_version text null;`)
    this.addSql(`alter table event add column privacy_notice_url text null;`)
    this.addSql(`alter table event add column privacy_notice_text text null;`)
    this.addSql(`alter table event add column list_guests_by_default boolean not null default true;`)
    this.addSql(`alter table session add column listed boolean not null default true;`)
    this.addSql(`alter table session_guest add column marketing_opt_in boolean not null default false;`)
    this.addSql(`alter table session_guest add column listed boolean not null default true;`)
    this.addSql(`alter table session_guest add column privacy_notice_version text null;`)
    this.addSql(`alter table session_guest add column registered_at timestamptz null;`)
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table session_guest drop column registered_at, drop column privacy_notice_version, drop column listed, drop column marketing_opt_in;`,
    )
    this.addSql(`alter table session drop column listed;`)
    this.addSql(
      `alter table event drop column list_guests_by_default, drop column privacy_notice_text, drop column privacy_notice_url, drop column privacy_notice_version, drop column phone_country;`,
    )
  }
}
