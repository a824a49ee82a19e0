import { Migration } from '@mikro-orm/migrations'

/**
 * Every privacy-notice version an event has published, so that a registration may name the version
 * its guests read (a kiosk that queued it offline, before staff changed the notice) and a version
 * the event never published is refused. Kept by a trigger on the event's row, so that no way of
 * setting a notice (staff, the seed, a script) can skip it; the versions in force are recorded now.
 */
export class PrivacyNoticesSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table event_privacy_notice (
        event_id text not null references event (id) on delete cascade,
        version text not null,
        published_at timestamptz not null default now(),
        constraint event_privacy_notice_pkey primary key (event_id, version)
      );
      insert into event_privacy_notice (event_id, version, published_at)
        select id, privacy_notice_version, created_at from event where privacy_notice_version is not null;
      create function record_event_privacy_notice() returns trigger language plpgsql as $$
      begin
        insert into event_privacy_notice (event_id, version) values (new.id, new.privacy_notice_version) on conflict do nothing;
        return null;
      end
      $$;
      create trigger event_privacy_notice_published after insert or update of privacy_notice_version on event
        for each row when (new.privacy_notice_version is not null) execute function record_event_privacy_notice();
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger event_privacy_notice_published on event;
      drop function record_event_privacy_notice();
      drop table event_privacy_notice;
    `)
  }
}
