import { Migration } from '@mikro-orm/migrations'

export class GalleryVersionsSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- When staff last changed the event or one of its sets: part of the galleries' and the event
      -- page's ETag, so that a cached copy is revalidated after an edit.
      alter table event add column updated_at timestamptz not null default now();
    `)
  }

  override async down(): Promise<void> {
    this.addSql('alter table event drop column updated_at;')
  }
}
