import { EntitySchema } from '@mikro-orm/core'

/** The team's rules, set by its owners: one row (id 1), made on first change. */
export class TeamSettings {
  id = 1
  requireTwoFactor = false
}

export const TeamSettingsSchema = new EntitySchema<TeamSettings>({
  class: TeamSettings,
  tableName: 'team_settings',
  checks: [{ name: 'team_settings_id_check', expression: 'id = 1' }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    requireTwoFactor: { type: 'boolean', default: false },
  },
})
