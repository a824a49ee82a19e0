import { Migration } from '@mikro-orm/migrations'

export class TrackingSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- Counts only: nothing about the visitor (no IP, no user agent, no cookie).
      create table tracking_event (
        id bigint generated always as identity primary key,
        kind text not null,
        channel text,
        event_id text not null references event (id) on delete cascade,
        session_id text references session (id) on delete cascade,
        created_at timestamptz not null default now(),
        constraint tracking_event_kind_check check (kind in ('view', 'share', 'download', 'zip')),
        constraint tracking_event_channel_check check (channel in ('facebook', 'instagram', 'tiktok', 'copy', 'native')),
        constraint tracking_event_share_channel_check check ((kind = 'share') = (channel is not null))
      );
      create index tracking_event_event_id_kind_index on tracking_event (event_id, kind);
      create index tracking_event_session_id_index on tracking_event (session_id) where session_id is not null;
    `)
  }

  override async down(): Promise<void> {
    this.addSql('drop table tracking_event;')
  }
}
