/**
 * Reads the database until `done` holds, and fails with the last value read if it does not within
 * `ms`: what the dispatcher wrote is only seen by reading PostgreSQL again. The default is generous:
 * it bounds a wait for something that should happen, not how fast, and CI's 2 cores are often shared.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`not done within ${ms} ms; last read: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
