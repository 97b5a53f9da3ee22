import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { KeyMode } from '../../domain/credentials.ts';
import type { DatabaseSchema } from './schema.ts';

// An event is on one timeline (decision 0063): its payment's, or a subscription's own when no payment carries it
// (`payment_id` null). Its mode is its timeline's: the readers that show a key's events only ask here.

/** The events of this mode (and merchant): those of its payments, and those of its subscriptions' own timelines. */
export function eventsOfMode(
  eb: ExpressionBuilder<DatabaseSchema, 'events'>,
  mode: KeyMode,
  merchantId?: string,
): Expression<SqlBool> {
  let payments = eb.selectFrom('payments').select('payments.id').where('payments.mode', '=', mode);
  let subscriptions = eb
    .selectFrom('subscriptions')
    .select('subscriptions.id')
    .where('subscriptions.mode', '=', mode);
  if (merchantId !== undefined) {
    payments = payments.where('payments.merchant_id', '=', merchantId);
    subscriptions = subscriptions.where('subscriptions.merchant_id', '=', merchantId);
  }
  return eb.or([eb('events.payment_id', 'in', payments), eb('events.subscription_id', 'in', subscriptions)]);
}
