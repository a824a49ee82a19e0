/**
 * The rows of a one-to-many join, or of one table read in order, grouped by `key` in the order
 * each key first appears: the one way parents get their children here.
 */
export function groupBy<R, K>(rows: readonly R[], key: (row: R) => K): Map<K, R[]> {
  const groups = new Map<K, R[]>()
  for (const row of rows) {
    const group = groups.get(key(row))
    if (group) group.push(row)
    else groups.set(key(row), [row])
  }
  return groups
}
