import { createHmac } from 'node:crypto'

/** The secret of an `otpauth://totp/…?secret=<base32>` URI, as bytes (RFC 4648 base32). */
function secretOf(uri: string): Buffer {
  const base32 = new URL(uri).searchParams.get('secret')!.replace(/=+$/, '').toUpperCase()
  let bits = ''
  for (const char of base32) bits += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(char).toString(2).padStart(5, '0')
  return Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)))
}

/** The code an authenticator app shows now for this URI (RFC 6238: SHA-1, 30 s steps, 6 digits). */
export function totpCode(uri: string, at = Date.now()): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)))
  const hmac = createHmac('sha1', secretOf(uri)).update(counter).digest()
  const offset = hmac[hmac.length - 1]! & 0x0f
  return String((hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}
