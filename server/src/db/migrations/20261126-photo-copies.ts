import { Migration } from '@mikro-orm/migrations'

/**
 * Copies made from each photo after completion (issue "Photos fit for phones"): the full-size photo
 * guests get (upright, without EXIF location or camera tags), display copies and a link preview.
 * The work is a durable job on the photo's own row (modules/photos/copies-worker.ts). Photos
 * recorded before this have no copies: `legacy`, served as they were until
 * `pnpm admin photos make-copies` queues them.
 */
export class PhotoCopiesSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table photo add column image_status text not null default 'legacy';
      alter table photo alter column image_status set default 'queued';
      alter table photo add constraint photo_image_status_check check (image_status in ('legacy', 'queued', 'ready', 'failed'));
      alter table photo add column image_attempts integer not null default 0;
      alter table photo add constraint photo_image_attempts_check check (image_attempts >= 0);
      alter table photo add column image_due_at timestamptz not null default now();
      alter table photo add column image_error text;
      alter table photo add column full_size integer;
      alter table photo add column full_etag text;
      alter table photo add column copies jsonb;
      alter table photo add column preview boolean not null default false;
      create index photo_image_due_idx on photo (image_due_at) where image_status = 'queued';
      alter table session add column images_settled integer not null default 0;
      alter table session add column images_ready_at timestamptz;
    `)
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table session drop column images_ready_at;
      alter table session drop column images_settled;
      drop index photo_image_due_idx;
      alter table photo drop column preview, drop column copies, drop column full_etag, drop column full_size,
        drop column image_error, drop column image_due_at, drop column image_attempts, drop column image_status;
    `)
  }
}
