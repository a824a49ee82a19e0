import type { FileHandle } from 'node:fs/promises'
import { Readable } from 'node:stream'

/**
 * Read buffers lent out and handed back once the socket has sent them. A zip moves a gigabyte:
 * as fresh 1 MiB buffers, that much external memory makes V8 run a full mark-compact of the whole
 * heap every ~64 MB (about 50 per zip; bench/README.md), and the reads fault in new pages.
 */
export class ChunkPool {
  private readonly free: Buffer[] = []
  private readonly lent = new WeakSet<ArrayBufferLike>()

  constructor(
    readonly chunkBytes: number,
    /** Free buffers kept; any more are left to the garbage collector. */
    private readonly keep = 8,
  ) {}

  take(): Buffer {
    const buffer = this.free.pop() ?? Buffer.allocUnsafeSlow(this.chunkBytes)
    this.lent.add(buffer.buffer)
    return buffer
  }

  /** Takes back a chunk cut from a lent buffer, once nothing reads it any more; ignores any other chunk. */
  give(chunk: Uint8Array): void {
    if (!this.lent.delete(chunk.buffer)) return
    if (this.free.length < this.keep) this.free.push(Buffer.from(chunk.buffer, 0, this.chunkBytes))
  }
}

/** A file read into the pool's buffers, one read ahead at most (a pushed chunk fills the stream's buffer). */
export class PooledFileStream extends Readable {
  private position = 0

  /** Takes over `file` (opened by the caller, who checked it first) and closes it when done. */
  constructor(
    private readonly file: FileHandle,
    private readonly pool: ChunkPool,
  ) {
    super()
  }

  override _read(): void {
    const buffer = this.pool.take()
    this.file.read(buffer, 0, buffer.length, this.position).then(
      ({ bytesRead }) => {
        if (bytesRead === 0) {
          this.pool.give(buffer)
          this.push(null)
          return
        }
        this.position += bytesRead
        this.push(buffer.subarray(0, bytesRead))
      },
      (error: Error) => this.destroy(error),
    )
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.file.close().then(
      () => done(error),
      (closeError: Error) => done(error ?? closeError),
    )
  }
}
