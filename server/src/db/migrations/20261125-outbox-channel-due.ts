import { Migration } from '@mikro-orm/migrations'

/**
 * The dispatcher claims each channel on its own (a lane per channel, DELIVERY_CONCURRENCY requests
 * in flight each): the due index leads with the channel, so that a claim reads only its own
 * channel's waiting rows, not past another channel's backlog (thousands of SMS waiting "not
 * configured", or an SMS lane behind Postmark batches at the end of an event).
 */
export class OutboxChannelDueSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index outbox_message_channel_due_idx on outbox_message (channel, next_attempt_at) where status = 'pending';
      drop index outbox_message_due_idx;
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`
      create index outbox_message_due_idx on outbox_message (next_attempt_at) where status = 'pending';
      drop index outbox_message_channel_due_idx;
    `)
  }
}
