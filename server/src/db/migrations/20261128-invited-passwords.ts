import { Migration } from '@mikro-orm/migrations'

/** An invited member signs in first with a password someone else chose, and must change it (modules/staff). */
export class InvitedPasswordsSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "staff_member" add column "must_change_password" boolean not null default false;`)
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "staff_member" drop column "must_change_password";`)
  }
}
