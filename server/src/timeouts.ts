/** `promise`, or a rejection once `ms` have passed without it settling (the promise itself goes on). */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
