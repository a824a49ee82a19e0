import { Migration } from '@mikro-orm/migrations'

/** Second-factor codes members used, for a while (db/entities/used-totp.entity.ts): each is accepted once. */
export class StaffUsedTotpSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table staff_used_totp (
        user_id text not null,
        code_hash text not null,
        used_at timestamptz not null default now(),
        constraint staff_used_totp_pkey primary key (user_id, code_hash)
      );
    `)
  }

  override async down(): Promise<void> {
    this.addSql('drop table staff_used_totp;')
  }
}
