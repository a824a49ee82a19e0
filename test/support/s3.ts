import { mkdtemp, rm } from 'node:fs/promises'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import S3rver from 's3rver'

import type { StorageSettings } from '@photobooth/server/config'

import { scratchDatabases } from './databases.js'
import { startTestServer, type TestServer } from './harness.js'

export type FakeS3 = {
  settings: Extract<StorageSettings, { kind: 's3' }>
  endpoint: string
  /** Object reads (GETs) served so far, and those whose response is still open. */
  reads: () => { started: number; open: number }
  close: () => Promise<void>
}

/** A real S3 API server on loopback (s3rver), with one empty bucket. */
export async function startFakeS3(bucket = 'photos'): Promise<FakeS3> {
  const directory = await mkdtemp(join(tmpdir(), 'photobooth-s3-'))
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] })
  const { port } = (await server.run()) as { port: number }
  const reads = { started: 0, open: 0 }
  ;(server as unknown as { httpServer: Server }).httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET') return
    reads.started++
    reads.open++
    res.once('close', () => reads.open--)
  })
  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    settings: {
      kind: 's3',
      bucket,
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      // s3rver's own credentials.
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      timeoutMs: 5_000,
    },
    reads: () => ({ ...reads }),
    close: async () => {
      await server.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}

export type S3TestServer = { s3: FakeS3; app: TestServer; stop: () => Promise<void> }

/**
 * The service on s3rver, with a database of its own: the copies worker of a local-bucket server of
 * the same test file could not read this bucket's photos (nor this one the other's).
 */
export async function startS3TestServer(prefix: string): Promise<S3TestServer> {
  const databases = scratchDatabases(prefix)
  const s3 = await startFakeS3()
  const app = await startTestServer({ databaseUrl: await databases.create(), storage: s3.settings, cdnUrl: `${s3.endpoint}/photos` })
  return {
    s3,
    app,
    stop: async () => {
      await app.stop()
      await s3.close()
      await databases.dropAll()
    },
  }
}
