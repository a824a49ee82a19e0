import { Migration } from '@mikro-orm/migrations'

/**
 * A person is found by any address or number they gave (modules/people): a customer linked by
 * phone keeps the email of its first registration only, so the lookup reads the guest rows too.
 */
export class PersonLookupSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index session_guest_email_index on session_guest (lower(email));
      create index session_guest_phone_index on session_guest (phone);
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`drop index session_guest_email_index; drop index session_guest_phone_index;`)
  }
}
