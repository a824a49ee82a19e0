import type { Transport } from './transport.js'
import type { resumeUpload } from './upload.js'

const transports = new WeakMap<object, Transport>()
/** The booth clients' upload, found by the offline queue: a kiosk's queue then ships none of its code. */
const uploaders = new WeakMap<object, typeof resumeUpload>()

/** Remembers a client's transport, for the helpers that send beside its routes (uploads). */
export function registerTransport(client: object, transport: Transport): void {
  transports.set(client, transport)
}

export function registerUploader(client: object, upload: typeof resumeUpload): void {
  uploaders.set(client, upload)
}

export function uploaderOf(client: object): typeof resumeUpload {
  const upload = uploaders.get(client)
  // createClient's whole client ships no upload code (a kiosk app bundles it): a booth's client does.
  if (!upload) throw new TypeError('Queue uploads with a client made by createBoothClient (@photobooth/sdk/booth)')
  return upload
}

export function transportOf(client: object): Transport {
  const transport = transports.get(client)
  if (!transport) throw new TypeError('Expected a client made by createClient')
  return transport
}
