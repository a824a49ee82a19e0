import type { EntityManager } from '@mikro-orm/postgresql'
import type { Suppression } from '@photobooth/sdk/schemas'
import type { z } from 'zod'

import type { AppContext } from '../../context.js'
import type { SuppressionReason } from '../../db/entities/suppression.entity.js'
import { AppError } from '../../errors.js'
import { queriedPhone } from '../common/index.js'
import { createPostmarkClient } from './postmark-transport.js'
import { SUPPRESSION_QUERIES } from './suppressions.queries.js'
import { run } from '../../db/query.js'

/**
 * The suppression list: addresses nothing is sent to (hard bounces, complaints, STOPs), written by the
 * providers' webhooks (modules/webhooks), read by the outbox, looked up and lifted by staff.
 */
type Channel = 'email' | 'sms'

/** Puts an address on the list (a hard bounce, a complaint, a STOP): nothing is sent to it again. */
export async function suppress(em: EntityManager, channel: Channel, address: string | undefined, reason: SuppressionReason): Promise<void> {
  if (address?.trim()) await run(em, SUPPRESSION_QUERIES.suppress, [channel, address, reason])
}

/** Takes an address off the list; whether it was on it. */
export async function lift(em: EntityManager, channel: Channel, address: string | undefined): Promise<boolean> {
  if (!address?.trim()) return false
  return (await run(em, SUPPRESSION_QUERIES.lift, [channel, address])).length > 0
}

/** Staff look up an address: its suppression, if it has one. */
export async function findSuppressions({ em }: Pick<AppContext, 'em'>, query: { email?: string; phone?: string }) {
  const [channel, address] =
    query.email !== undefined ? (['email', query.email] as const) : (['sms', queriedPhone(query.phone ?? '')] as const)
  const rows = await run(em, SUPPRESSION_QUERIES.find, [channel, address])
  return { suppressions: rows.map((row) => ({ ...row, reason: row.reason as z.output<typeof Suppression>['reason'] })) }
}

export const NOT_SUPPRESSED = 'the address is not suppressed'

/**
 * Staff lift an email's suppression (the guest fixed their mailbox): off our list, and reactivated on
 * Postmark's message stream, which would refuse it otherwise (406). Postmark's failure does not undo
 * ours: the answer says so, and staff can reactivate it there.
 */
export async function liftSuppression(
  { em, config, logger }: Pick<AppContext, 'em' | 'config' | 'logger'>,
  { email }: { email: string },
): Promise<{ lifted: true; liftedAtPostmark: boolean }> {
  if (!(await lift(em, 'email', email))) throw new AppError('not_suppressed', NOT_SUPPRESSED)
  const postmark = config.delivery.email?.kind === 'postmark' ? config.delivery.email : undefined
  if (!postmark) return { lifted: true, liftedAtPostmark: false }
  try {
    const answer = await createPostmarkClient(postmark).deleteSuppressions(postmark.messageStream, {
      Suppressions: [{ EmailAddress: email }],
    })
    return { lifted: true, liftedAtPostmark: answer.Suppressions.every((entry) => entry.Status !== 'Failed') }
  } catch (error) {
    logger.warn('Postmark did not reactivate an address', { error: (error as Error).name })
    return { lifted: true, liftedAtPostmark: false }
  }
}
