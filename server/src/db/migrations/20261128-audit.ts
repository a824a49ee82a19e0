import { Migration } from '@mikro-orm/migrations'

/** The staff audit trail (modules/audit): one row per staff change or export of guests' data. */
export class AuditSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table audit_event (
        id text not null primary key,
        at timestamptz not null default now(),
        member_id text not null,
        role text not null,
        action text not null,
        targets jsonb not null,
        status integer not null,
        request_id text not null,
        source_ip text not null
      );
      create index audit_event_at_id_index on audit_event (at, id);
      create index audit_event_member_id_index on audit_event (member_id);
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`drop table audit_event;`)
  }
}
