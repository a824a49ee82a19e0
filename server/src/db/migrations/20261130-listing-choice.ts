import { Migration } from '@mikro-orm/migrations'

/**
 * A guest's listing on the event page as a choice (`listing_choice`: true or false when they were
 * asked, null when they were not), apart from whether they are listed (`listed`, what the page
 * shows). A guest who was not asked is listed only when they registered while the event was public
 * with listing on by default. Guests registered before this, at events private now, were not asked
 * as far as anyone can tell: they are unlisted, so that making their event public publishes nobody
 * who did not choose it.
 */
export class ListingChoiceSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table session_guest add column listing_choice boolean null;
      update session_guest g set listed = false
        from session s join event_set st on st.id = s.set_id join event e on e.id = st.event_id
       where g.session_id = s.id and e.is_private;
      update session s set listed = false
        from event_set st join event e on e.id = st.event_id
       where st.id = s.set_id and e.is_private;
    `)
  }

  override async down(): Promise<void> {
    this.addSql('alter table session_guest drop column listing_choice;')
  }
}
