import { Migration } from '@mikro-orm/migrations'

export class BoothSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table booth_key (
        id text primary key,
        name text not null check (length(name) between 1 and 100),
        secret_hash bytea not null check (length(secret_hash) = 32),
        created_at timestamptz not null default now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );

      -- Messages that must not be lost: written in the transaction that completes a session,
      -- sent later by the dispatcher, which records the outcome here.
      create table outbox_message (
        id text primary key,
        session_id text not null references session (id) on delete cascade,
        session_guest_id text not null references session_guest (id) on delete cascade,
        channel text not null,
        recipient text not null,
        link text not null,
        status text not null default 'pending',
        attempts integer not null default 0 check (attempts >= 0),
        next_attempt_at timestamptz not null default now(),
        provider_message_id text,
        last_error text,
        created_at timestamptz not null default now(),
        sent_at timestamptz,
        constraint outbox_message_channel_check check (channel in ('email', 'sms')),
        constraint outbox_message_status_check check (status in ('pending', 'sent', 'failed')),
        constraint outbox_message_guest_channel_unique unique (session_guest_id, channel)
      );
      create index outbox_message_due_idx on outbox_message (next_attempt_at) where status = 'pending';
    `)
  }

  override async down(): Promise<void> {
    this.addSql('drop table outbox_message, booth_key;')
  }
}
