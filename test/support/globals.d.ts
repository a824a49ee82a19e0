// Test bodies are asserted against literal shapes; an `unknown` from json() would only add casts.
declare global {
  interface Response {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>
  }
}

export {}
