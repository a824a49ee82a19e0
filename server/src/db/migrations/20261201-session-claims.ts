import { Migration } from '@mikro-orm/migrations'

/** Which booth holds an active session, and until when (modules/booth/claims.service.ts). */
export class SessionClaimsSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table session_claim (
        session_id text not null primary key,
        booth_key_id text not null,
        holder text not null default '',
        claimed_at timestamptz not null,
        expires_at timestamptz not null,
        constraint session_claim_session_id_fkey foreign key (session_id) references session (id) on update no action on delete cascade,
        constraint session_claim_holder_check check (length(holder) <= 100)
      );
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`drop table session_claim;`)
  }
}
