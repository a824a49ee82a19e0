import { Migration } from '@mikro-orm/migrations'

/** Webhook deliveries seen, for a while (db/entities/webhook-replay.entity.ts): a Twilio STOP or START is applied once. */
export class WebhookReplaysSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_replay (
        key_hash text not null,
        seen_at timestamptz not null default now(),
        constraint webhook_replay_pkey primary key (key_hash)
      );
      create index webhook_replay_seen_at_index on webhook_replay (seen_at);
    `)
  }

  override async down(): Promise<void> {
    this.addSql('drop table webhook_replay;')
  }
}
