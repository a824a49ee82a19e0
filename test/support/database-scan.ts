import type { Orm } from '@photobooth/server/db/orm'

/**
 * Every text (and JSON, and byte) column of every table that holds `needle`, with how many rows:
 * where a guest's email, phone or name may have been left behind. Bytes (a stored answer, a key's
 * hash) are searched as bytes: not all of them are UTF-8.
 */
export async function findEverywhere(orm: Orm, needle: string): Promise<string[]> {
  const em = orm.em.fork()
  const columns = await em.execute<{ table_name: string; column_name: string; data_type: string }[]>(
    `select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' and data_type in ('text', 'character varying', 'json', 'jsonb', 'bytea')`,
  )
  const found: string[] = []
  for (const { table_name, column_name, data_type } of columns) {
    const [row] =
      data_type === 'bytea'
        ? await em.execute<{ count: number }[]>(
            `select count(*)::int as count from "${table_name}" where position(convert_to(?, 'UTF8') in "${column_name}") > 0`,
            [needle],
          )
        : await em.execute<{ count: number }[]>(`select count(*)::int as count from "${table_name}" where "${column_name}"::text ilike ?`, [
            `%${needle}%`,
          ])
    if (row!.count > 0) found.push(`${table_name}.${column_name}: ${row!.count}`)
  }
  return found
}
