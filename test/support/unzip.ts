import yauzl from 'yauzl'

export type UnzippedEntry = { name: string; bytes: Buffer; compressionMethod: number; crc32: number; modified: Date }

/** Reads every entry of a zip with a real zip reader (yauzl), checking CRCs as it goes. */
export function unzip(zip: Buffer): Promise<UnzippedEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true }, (error, file) => {
      if (error || !file) return reject(error ?? new Error('yauzl opened no zip'))
      const entries: UnzippedEntry[] = []
      file.on('error', reject)
      file.on('end', () => resolve(entries))
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error(`yauzl opened no stream for ${entry.fileName}`))
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk))
          stream.on('error', reject)
          stream.on('end', () => {
            entries.push({
              name: entry.fileName,
              bytes: Buffer.concat(chunks),
              compressionMethod: entry.compressionMethod,
              crc32: entry.crc32,
              modified: entry.getLastModDate(),
            })
            file.readEntry()
          })
        })
      })
      file.readEntry()
    })
  })
}
