import type { Transport } from './transport.js'

const transports = new WeakMap<object, Transport>()

/** Remembers a client's transport, for the helpers that send beside its routes (uploads). */
export function registerTransport(client: object, transport: Transport): void {
  transports.set(client, transport)
}

export function transportOf(client: object): Transport {
  const transport = transports.get(client)
  if (!transport) throw new TypeError('Expected a client made by createClient')
  return transport
}
