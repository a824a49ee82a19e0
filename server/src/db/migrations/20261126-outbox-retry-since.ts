import { Migration } from '@mikro-orm/migrations'

/**
 * A message's retry time is counted in time, not attempts (DELIVERY_RETRY_HOURS), from when it
 * began to be tried: its queueing, or the last time staff retried it. `created_at` stays the
 * queueing (the delivery latency, a resend's one-minute check).
 */
export class OutboxRetrySinceSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table outbox_message add column retry_since timestamptz not null default now();`)
    this.addSql(`update outbox_message set retry_since = created_at;`)
  }

  override async down(): Promise<void> {
    this.addSql(`alter table outbox_message drop column retry_since;`)
  }
}
