import { Migration } from '@mikro-orm/migrations'

/** Which booth key asked for each upload URL: a revoked key's URLs stop working (modules/booth). */
export class UploadGrantsSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table upload_grant (
        storage_key text not null primary key,
        session_id text not null,
        booth_key_id text not null,
        created_at timestamptz not null default now(),
        constraint upload_grant_session_id_fkey foreign key (session_id) references session (id) on update no action on delete cascade
      );
      create index upload_grant_session_id_index on upload_grant (session_id);
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`drop table upload_grant;`)
  }
}
