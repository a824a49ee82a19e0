/** Times leave the database as integer milliseconds since the epoch, the unit of every response. */
export const epochMillis = (column: string) => `floor(extract(epoch from ${column}) * 1000)::float8`
