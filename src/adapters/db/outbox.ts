import type { Kysely } from 'kysely';
import type { OutboxEvent } from '../../app/chain/ports.ts';
import { insertEndpointDeliveries } from './endpointDeliveries.ts';
import type { DatabaseSchema } from './schema.ts';

/**
 * Writes an event owed to a merchant (delivered later by the webhook dispatcher), numbered after the payment's
 * previous ones, with what it owes each of the merchant's webhook endpoints. The caller's transaction holds the
 * payment's row lock, so max + 1 cannot race.
 */
export async function insertOutboxEvent(trx: Kysely<DatabaseSchema>, event: OutboxEvent): Promise<void> {
  const last = await trx
    .selectFrom('events')
    .select((eb) => eb.fn.max('sequence').as('last'))
    .where('payment_id', '=', event.paymentId)
    .executeTakeFirst();
  await trx
    .insertInto('events')
    .values({
      id: event.id,
      payment_id: event.paymentId,
      merchant_id: event.merchantId,
      sequence: Number(last?.last ?? 0) + 1,
      type: event.type,
      payload: event.payload,
      created_at: event.createdAt.toISOString(),
    })
    .execute();
  await insertEndpointDeliveries(trx, event);
}
