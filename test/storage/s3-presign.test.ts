import { createS3Storage } from '@photobooth/server/modules/storage/s3-storage'
import { describe, expect, it } from 'vitest'

describe('S3 presigned uploads', () => {
  const storage = createS3Storage({
    bucket: 'photos',
    region: 'auto',
    endpoint: 'https://account.r2.cloudflarestorage.com',
    forcePathStyle: true,
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    timeoutMs: 5_000,
  })

  it('when a target is presigned, then the signature binds Content-Type: image/jpeg and the target expires', async () => {
    const before = Date.now()
    const target = await storage.presignUpload('sessions/abc/def.jpg', 900)
    const url = new URL(target.url)
    expect(url.origin + url.pathname).toBe('https://account.r2.cloudflarestorage.com/photos/sessions/abc/def.jpg')
    expect(url.searchParams.get('X-Amz-SignedHeaders')!.split(';')).toContain('content-type')
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900')
    expect(target).toMatchObject({ key: 'sessions/abc/def.jpg', method: 'PUT', headers: { 'Content-Type': 'image/jpeg' } })
    expect(target.expiresAt).toBeGreaterThanOrEqual(before + 900_000)
    expect(target.expiresAt).toBeLessThanOrEqual(Date.now() + 900_000)
  })
})
