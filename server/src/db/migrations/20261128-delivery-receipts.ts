import { Migration } from '@mikro-orm/migrations'

/**
 * Delivery receipts and suppression (modules/webhooks): a message goes on from `sent` as its provider
 * reports (`delivered`, `bounced`, `undelivered`), or is not sent at all (`suppressed`); webhooks find
 * it by the provider's id; the suppression list holds hashes of the addresses that get nothing.
 */
export class DeliveryReceiptsSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table outbox_message drop constraint outbox_message_status_check;`)
    this.addSql(
      `alter table outbox_message add constraint outbox_message_status_check check (status in ('pending', 'sent', 'delivered', 'bounced', 'undelivered', 'suppressed', 'failed'));`,
    )
    this.addSql(`alter table outbox_message add column delivered_at timestamptz null;`)
    this.addSql(`create index outbox_message_provider_message_id_index on outbox_message (provider_message_id);`)
    this.addSql(`
      create table suppression (
        channel text not null,
        address_hash text not null,
        reason text not null,
        created_at timestamptz not null default now(),
        primary key (channel, address_hash),
        constraint suppression_channel_check check (channel in ('email', 'sms')),
        constraint suppression_reason_check check (reason in ('hard-bounce', 'spam-complaint', 'unsubscribed', 'inactive-recipient'))
      );
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`drop table suppression;`)
    this.addSql(`drop index outbox_message_provider_message_id_index;`)
    this.addSql(`alter table outbox_message drop column delivered_at;`)
    this.addSql(`alter table outbox_message drop constraint outbox_message_status_check;`)
    this.addSql(`alter table outbox_message add constraint outbox_message_status_check check (status in ('pending', 'sent', 'failed'));`)
  }
}
