import type { EventQuery, EventRecord, EventStore } from '../../app/webhooks/endpointPorts.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { PAYMENT_EVENT_TYPES } from '../../domain/paymentStatus.ts';
import type { Db } from './db.ts';
import { eventsOfMode } from './eventTimeline.ts';
import { olderThan } from './keyset.ts';
import { oneOf } from './storedValues.ts';

/** A merchant's events of one mode: an event has the mode of its timeline, a payment or a subscription. */
function eventsOf(db: Db, merchantId: string, mode: KeyMode) {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'payment_id', 'subscription_id', 'payload', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where((eb) => eventsOfMode(eb, mode, merchantId));
}

/**
 * The outbox read as a merchant's event history (the events API, decision 0058). Nothing deletes events: the
 * history is as long as the database's, which the API promises to be 30 days at least.
 */
export function eventRepository(db: Db): EventStore {
  return {
    async list(query: EventQuery) {
      let select = eventsOf(db, query.merchantId, query.mode);
      if (query.type !== undefined) select = select.where('type', '=', query.type);
      if (query.createdAfter !== undefined)
        select = select.where('created_at', '>', query.createdAfter.toISOString());
      if (query.createdBefore !== undefined)
        select = select.where('created_at', '<', query.createdBefore.toISOString());
      if (query.after !== undefined) select = select.where(olderThan(query.after));
      const rows = await select
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit)
        .execute();
      return rows.map((row) => toRecord(row, query.mode));
    },
    async find(merchantId, mode, eventId) {
      const row = await eventsOf(db, merchantId, mode).where('id', '=', eventId).executeTakeFirst();
      return row && toRecord(row, mode);
    },
  };
}

function toRecord(
  row: {
    id: string;
    type: string;
    payment_id: string | null;
    subscription_id: string | null;
    payload: string;
    created_at: string;
  },
  mode: KeyMode,
): EventRecord {
  return {
    id: row.id,
    type: oneOf(PAYMENT_EVENT_TYPES, row.type, 'event type'),
    paymentId: row.payment_id,
    subscriptionId: row.subscription_id,
    mode,
    payload: row.payload,
    createdAt: new Date(row.created_at),
  };
}
