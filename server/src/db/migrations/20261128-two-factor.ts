import { Migration } from '@mikro-orm/migrations'

/**
 * A second factor for staff (Better Auth's two-factor plugin, configured in AUTH_SCHEMA): its table
 * and the member's flag, as its getMigrations() compiles them (test/staff/sign-in.test.ts fails when
 * they drift apart); and the team's rule that every member must have one.
 */
export class TwoFactorSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table "staff_member" add column "two_factor_enabled" boolean default false;
      create table "staff_two_factor" ("id" text not null primary key, "secret" text not null, "backup_codes" text not null, "staff_member_id" text not null references "staff_member" ("id") on delete cascade, "verified" boolean, "failed_verification_count" integer, "locked_until" timestamptz);
      create index "staff_two_factor_secret_idx" on "staff_two_factor" ("secret");
      create index "staff_two_factor_staff_member_id_idx" on "staff_two_factor" ("staff_member_id");

      create table team_settings (
        id int not null default 1 primary key,
        require_two_factor boolean not null default false,
        constraint team_settings_id_check check (id = 1)
      );
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`drop table team_settings; drop table "staff_two_factor"; alter table "staff_member" drop column "two_factor_enabled";`)
  }
}
