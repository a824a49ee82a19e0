/** Times leave the database as integer milliseconds since the epoch, the unit of every response. */
export const epochMillis = (column: string) => `floor(extract(epoch from ${column}) * 1000)::float8`

/** A time as integer microseconds since the epoch, PostgreSQL's own resolution: exact keys for keyset paging (a float8 holds them exactly until 2255). */
export const micros = (column: string) => `(extract(epoch from ${column}) * 1000000)::float8`
