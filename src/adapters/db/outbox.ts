import type { Kysely, Selectable } from 'kysely';
import type { OutboxEvent } from '../../app/chain/ports.ts';
import { PAYMENT_EVENT_TYPES } from '../../domain/paymentStatus.ts';
import { insertEndpointDeliveries } from './endpointDeliveries.ts';
import type { DatabaseSchema, EventsTable } from './schema.ts';
import { oneOf } from './storedValues.ts';

/**
 * Writes an event owed to a merchant (delivered later by the webhook dispatcher), numbered after the previous ones
 * of its timeline — its payment's, or its subscription's own (decision 0063) — with what it owes each of the
 * merchant's webhook endpoints. The caller's transaction holds the payment's row lock, or is the subscription's
 * creation or a look under its lease, so max + 1 cannot race (and a unique index per timeline would refuse it).
 */
export async function insertOutboxEvent(trx: Kysely<DatabaseSchema>, event: OutboxEvent): Promise<void> {
  const subscriptionId = event.paymentId === null ? event.subscriptionId : null;
  if (event.paymentId === null && !subscriptionId)
    throw new Error(`event ${event.id} is on no timeline: neither a payment nor a subscription`);
  const last = await trx
    .selectFrom('events')
    .select((eb) => eb.fn.max('sequence').as('last'))
    .where((eb) =>
      event.paymentId !== null
        ? eb('payment_id', '=', event.paymentId)
        : eb('subscription_id', '=', subscriptionId ?? ''),
    )
    .executeTakeFirst();
  await trx
    .insertInto('events')
    .values({
      id: event.id,
      payment_id: event.paymentId,
      subscription_id: subscriptionId ?? null,
      merchant_id: event.merchantId,
      sequence: Number(last?.last ?? 0) + 1,
      type: event.type,
      payload: event.payload,
      created_at: event.createdAt.toISOString(),
    })
    .execute();
  await insertEndpointDeliveries(trx, event);
}

/** An event's row as the event it is: what the payment's timeline lists, and what the webhook store extends. */
export function toOutboxEvent(row: Selectable<EventsTable>): OutboxEvent {
  return {
    id: row.id,
    paymentId: row.payment_id,
    subscriptionId: row.subscription_id,
    merchantId: row.merchant_id,
    type: oneOf(PAYMENT_EVENT_TYPES, row.type, 'event type'),
    payload: row.payload,
    createdAt: new Date(row.created_at),
  };
}
