import type { BetterAuthOptions } from 'better-auth'
import { twoFactor } from 'better-auth/plugins'

/** Better Auth's settings that do not depend on the deployment: also what its migration is generated from. */
export const AUTH_SCHEMA = {
  // Our `session` table is the guests'; Better Auth's tables are the staff's, in our naming.
  user: {
    modelName: 'staff_member',
    fields: { emailVerified: 'email_verified', createdAt: 'created_at', updatedAt: 'updated_at' },
    // What the member may do (STAFF_ROLES): set by owners and `pnpm admin`, never by a client of Better Auth.
    additionalFields: {
      role: { type: 'string', required: false, defaultValue: 'staff', input: false },
      // An invited member's password was chosen by someone else: they change it before anything else.
      mustChangePassword: { type: 'boolean', required: false, defaultValue: false, input: false, fieldName: 'must_change_password' },
    },
  },
  session: {
    modelName: 'staff_session',
    fields: {
      expiresAt: 'expires_at',
      ipAddress: 'ip_address',
      userAgent: 'user_agent',
      userId: 'staff_member_id',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  account: {
    modelName: 'staff_account',
    fields: {
      accountId: 'account_id',
      providerId: 'provider_id',
      userId: 'staff_member_id',
      accessToken: 'access_token',
      refreshToken: 'refresh_token',
      idToken: 'id_token',
      accessTokenExpiresAt: 'access_token_expires_at',
      refreshTokenExpiresAt: 'refresh_token_expires_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  verification: {
    modelName: 'staff_verification',
    fields: { expiresAt: 'expires_at', createdAt: 'created_at', updatedAt: 'updated_at' },
  },
  // A second factor: TOTP (an authenticator app) with one-time backup codes, per member.
  plugins: [
    twoFactor({
      issuer: 'Photo booth staff',
      twoFactorTable: 'staff_two_factor',
      schema: {
        user: { fields: { twoFactorEnabled: 'two_factor_enabled' } },
        twoFactor: {
          fields: {
            backupCodes: 'backup_codes',
            userId: 'staff_member_id',
            failedVerificationCount: 'failed_verification_count',
            lockedUntil: 'locked_until',
          },
        },
      },
    }),
  ],
} as const satisfies Pick<BetterAuthOptions, 'user' | 'session' | 'account' | 'verification' | 'plugins'>

/** Better Auth's tables, which it reaches through its own pool and MikroORM must leave alone. */
export const AUTH_TABLES = [
  AUTH_SCHEMA.user.modelName,
  AUTH_SCHEMA.session.modelName,
  AUTH_SCHEMA.account.modelName,
  AUTH_SCHEMA.verification.modelName,
  'staff_two_factor',
]
