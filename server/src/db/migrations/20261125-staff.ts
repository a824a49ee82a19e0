import { Migration } from '@mikro-orm/migrations'

export class StaffSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- Better Auth's tables, as its getMigrations() compiles them for AUTH_SCHEMA (modules/staff/auth.ts);
      -- test/staff/auth-schema.test.ts fails when they drift apart.
      create table "staff_member" ("id" text not null primary key, "name" text not null, "email" text not null unique, "email_verified" boolean not null, "image" text, "created_at" timestamptz default CURRENT_TIMESTAMP not null, "updated_at" timestamptz default CURRENT_TIMESTAMP not null);
      create table "staff_session" ("id" text not null primary key, "expires_at" timestamptz not null, "token" text not null unique, "created_at" timestamptz default CURRENT_TIMESTAMP not null, "updated_at" timestamptz not null, "ip_address" text, "user_agent" text, "staff_member_id" text not null references "staff_member" ("id") on delete cascade);
      create table "staff_account" ("id" text not null primary key, "account_id" text not null, "provider_id" text not null, "staff_member_id" text not null references "staff_member" ("id") on delete cascade, "access_token" text, "refresh_token" text, "id_token" text, "access_token_expires_at" timestamptz, "refresh_token_expires_at" timestamptz, "scope" text, "password" text, "created_at" timestamptz default CURRENT_TIMESTAMP not null, "updated_at" timestamptz not null);
      create table "staff_verification" ("id" text not null primary key, "identifier" text not null, "value" text not null, "expires_at" timestamptz not null, "created_at" timestamptz default CURRENT_TIMESTAMP not null, "updated_at" timestamptz default CURRENT_TIMESTAMP not null);
      create index "staff_session_staff_member_id_idx" on "staff_session" ("staff_member_id");
      create index "staff_account_staff_member_id_idx" on "staff_account" ("staff_member_id");
      create index "staff_verification_identifier_idx" on "staff_verification" ("identifier");

      -- Staff resend gallery links: a guest may now have several messages per channel over time, but
      -- only one waiting to be sent, which makes a double click (or two staff members) queue one.
      alter table outbox_message drop constraint outbox_message_guest_channel_unique;
      create unique index outbox_message_guest_channel_pending_unique on outbox_message (session_guest_id, channel) where status = 'pending';
      create index outbox_message_session_id_index on outbox_message (session_id);

      -- Staff list a set's sessions newest first, whatever their state; deleting a set finds them here too.
      create index session_set_id_created_at_index on session (set_id, created_at desc, id desc);

      -- Photos of deleted sessions, removed from storage after the rows are gone: a prefix stays
      -- here until storage confirms, so a storage failure leaves a retry, never an orphan.
      create table storage_deletion (
        prefix text primary key,
        attempts integer not null default 0 check (attempts >= 0),
        last_error text,
        created_at timestamptz not null default now()
      );
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table storage_deletion;
      drop index session_set_id_created_at_index;
      drop index outbox_message_session_id_index;
      drop index outbox_message_guest_channel_pending_unique;
      alter table outbox_message add constraint outbox_message_guest_channel_unique unique (session_guest_id, channel);
      drop table staff_verification, staff_account, staff_session, staff_member;
    `)
  }
}
