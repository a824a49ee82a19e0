import { Migration } from '@mikro-orm/migrations'

export class IdempotencySchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- Idempotency-Key of the kiosk, booth and staff changes (modules/idempotency): the first answer for
      -- a caller's key, replayed to its retries for 24 hours.
      create table idempotency_key (
        scope text not null,
        key text not null,
        owner text not null,
        request text not null,
        body_hash text not null,
        state text not null default 'running',
        status integer,
        content_type text,
        body bytea,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        locked_until timestamptz not null,
        primary key (scope, key),
        constraint idempotency_key_key_check check (length(key) >= 1 and length(key) <= 255),
        constraint idempotency_key_state_check check (state in ('running', 'done')),
        constraint idempotency_key_answer_check check (state = 'running' or status is not null)
      );
      create index idempotency_key_expires_at_index on idempotency_key (expires_at);
    `)
  }

  override async down(): Promise<void> {
    this.addSql('drop table idempotency_key;')
  }
}
