import { Migration } from '@mikro-orm/migrations'

/**
 * An event's dress and its kiosk's manners: the booth business's name, link, colour and line
 * (`branding`, JSON), its logo (a PNG this service made from the one staff gave, at most 800×240,
 * served under its hash), the kiosk's language and how long a kiosk waits untouched.
 */
export class EventBrandingSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table event
        add column language text null,
        add column kiosk_idle_seconds int null,
        add column branding jsonb null,
        add column logo_png bytea null,
        add column logo_hash text null,
        add column logo_width int null,
        add column logo_height int null;
      alter table event add constraint event_language_check check (language in ('en', 'es', 'it'));
      alter table event add constraint event_kiosk_idle_seconds_check check (kiosk_idle_seconds >= 15 and kiosk_idle_seconds <= 600);
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table event drop constraint event_language_check, drop constraint event_kiosk_idle_seconds_check,
        drop column language, drop column kiosk_idle_seconds, drop column branding,
        drop column logo_png, drop column logo_hash, drop column logo_width, drop column logo_height;
    `)
  }
}
