import { Migration } from '@mikro-orm/migrations'

/** A booth key may be limited to events (modules/booth-keys): null is every event, as every key was. */
export class BoothKeyScopeSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table booth_key add column event_ids text[] null;`)
  }

  override async down(): Promise<void> {
    this.addSql(`alter table booth_key drop column event_ids;`)
  }
}
