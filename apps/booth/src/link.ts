/**
 * The gallery link of the last completed session, for the booth's screen: as a QR code in the
 * terminal (when it is one, and not with --json), and as files another program can show:
 * `link/latest.txt`, `link/latest.svg` and `link/latest.png` under the state folder. The link is the
 * guests' own: it goes to these files and the screen, never to a log line.
 */
import { mkdir, open, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'

import { encode, renderSVG, renderUnicodeCompact } from 'uqr'

/** A QR code as a PNG: black modules on white, `scale` pixels each, with the four-module quiet zone. */
export function qrPng(text: string, scale = 10): Buffer {
  const { data, size } = encode(text, { border: 4 })
  const width = size * scale
  // One filter byte (0: none) a row, then 8-bit greyscale pixels.
  const raw = Buffer.alloc((width + 1) * width)
  for (let y = 0; y < width; y++) {
    const row = data[Math.floor(y / scale)]!
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = row[Math.floor(x / scale)] ? 0 : 255
  }
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(body.length, 0)
    head.write(type, 4, 'latin1')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0)
    return Buffer.concat([head, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(width, 4)
  header[8] = 8 // bit depth
  header[9] = 0 // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

async function replace(path: string, bytes: Buffer | string): Promise<void> {
  const temporary = `${path}.tmp`
  const file = await open(temporary, 'w')
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temporary, path)
}

/** Writes the link's files (replacing the last session's), and answers the terminal's QR code. */
export async function showLink(state: string, url: string): Promise<string> {
  const folder = join(state, 'link')
  await mkdir(folder, { recursive: true })
  await replace(join(folder, 'latest.png'), qrPng(url))
  await replace(join(folder, 'latest.svg'), renderSVG(url))
  await replace(join(folder, 'latest.txt'), `${url}\n`)
  return `${renderUnicodeCompact(url)}\n${url}`
}
