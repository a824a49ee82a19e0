import { Migration } from '@mikro-orm/migrations'

export class InitialSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table event (
        id text primary key,
        slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
        name text not null check (length(name) between 1 and 200),
        start_at timestamptz not null,
        is_private boolean not null default false,
        created_at timestamptz not null default now()
      );

      create table event_set (
        id text primary key,
        event_id text not null references event (id) on delete cascade,
        slug text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
        name text not null check (length(name) between 1 and 200),
        created_at timestamptz not null default now(),
        constraint event_set_event_id_slug_unique unique (event_id, slug)
      );

      create table customer (
        id text primary key,
        email text,
        phone text check (phone ~ '^\\+[1-9][0-9]{1,14}$'),
        first_name text not null,
        last_name text not null,
        created_at timestamptz not null default now(),
        constraint customer_contact_check check (email is not null or phone is not null)
      );
      -- The arbiters of race-safe linking: one customer per address, whatever its case, and per phone.
      create unique index customer_email_unique on customer (lower(email));
      create unique index customer_phone_unique on customer (phone);

      create table session (
        id text primary key,
        set_id text not null references event_set (id) on delete cascade,
        label text not null,
        status text not null default 'active',
        photo_count integer not null default 0 check (photo_count >= 0),
        created_at timestamptz not null default now(),
        completed_at timestamptz,
        cancelled_at timestamptz,
        constraint session_status_check check (status in ('active', 'completed', 'cancelled'))
      );
      -- The event page and the booth queue read sessions per set, newest or oldest first.
      create index session_live_idx on session (set_id, created_at desc, id desc)
        where status = 'completed' and photo_count > 0;
      create index session_active_idx on session (set_id, created_at, id) where status = 'active';

      create table session_guest (
        id text primary key,
        session_id text not null references session (id) on delete cascade,
        position integer not null check (position between 1 and 12),
        first_name text not null,
        last_name text not null,
        email text,
        phone text,
        customer_id text not null references customer (id),
        constraint session_guest_session_id_position_unique unique (session_id, position),
        constraint session_guest_contact_check check (email is not null or phone is not null)
      );
      create index session_guest_customer_id_index on session_guest (customer_id);

      create table photo (
        id text primary key,
        session_id text not null references session (id) on delete cascade,
        position integer not null check (position >= 1),
        storage_key text not null unique,
        width integer not null check (width > 0),
        height integer not null check (height > 0),
        size_bytes integer not null check (size_bytes >= 0),
        created_at timestamptz not null default now(),
        constraint photo_session_id_position_unique unique (session_id, position)
      );
    `)
  }

  override async down(): Promise<void> {
    this.addSql('drop table photo, session_guest, session, customer, event_set, event;')
  }
}
