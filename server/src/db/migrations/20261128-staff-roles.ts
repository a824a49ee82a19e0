import { Migration } from '@mikro-orm/migrations'

/**
 * Staff roles (modules/staff/roles.ts). Every member before roles could do everything: they become
 * owners, so that no deployment loses what it could do; owners then give the others their roles.
 */
export class StaffRolesSchema extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "staff_member" add column "role" text not null default 'staff' constraint staff_member_role_check check ("role" in ('owner', 'manager', 'staff'));`,
    )
    this.addSql(`update "staff_member" set "role" = 'owner';`)
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "staff_member" drop column "role";`)
  }
}
