import { Migration } from '@mikro-orm/migrations'

export class PhotoEtagSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- The stored object's ETag at completion: the byte routes refuse to send a photo that changed since.
      -- Null for photos recorded before it was kept; their size is still checked.
      alter table photo add column etag text;
    `)
  }

  override async down(): Promise<void> {
    this.addSql('alter table photo drop column etag;')
  }
}
