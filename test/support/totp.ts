import { TOTP, URI } from 'otpauth'

/**
 * The code an authenticator app shows at `at` for an `otpauth://totp/…` URI (RFC 6238, with the
 * URI's own algorithm, digits and period), computed by otpauth rather than by hand.
 */
export function totpCode(uri: string, at = Date.now()): string {
  const otp = URI.parse(uri)
  if (!(otp instanceof TOTP)) throw new Error('not a TOTP URI')
  return otp.generate({ timestamp: at })
}
