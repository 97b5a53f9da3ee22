import { sql } from 'kysely';
import type { DailyPaid, MerchantOverviewStore, PaidTotal, WaitingKind } from '../../app/dashboard/ports.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Db } from './database.ts';

/**
 * A merchant's home page (decision 0026). Each read is served by an index: paid totals by
 * `payments_merchant_mode_paid`, delayed payouts by the partial `payments_merchant_payout_blocked` (both
 * migration 0026),
 * refunds awaiting funds by `refunds_announced`, failing webhooks by the partial
 * `events_merchant_undelivered` (migration 0026); money is summed by
 * the database as exact integers and read back as text, never as a float.
 */
export function overviewRepository(db: Db): MerchantOverviewStore {
  return {
    paidBetween: (merchantId, mode, from, to) => paidBetween(db, merchantId, mode, from, to),
    paidByDay: (merchantId, mode, from, to) => paidByDay(db, merchantId, mode, from, to),
    waiting(merchantId, mode, kind, limit) {
      return WAITING_READS[kind](db, merchantId, mode, limit);
    },
  };
}

/** The merchant's paid payments of the mode with paid_at in [from, to), counted and summed (one row, or per day). */
function paidIn(db: Db, merchantId: string, mode: KeyMode, from: Date, to: Date) {
  return db
    .selectFrom('payments')
    .select([
      (eb) => eb.fn.countAll<string | number>().as('count'),
      // Both dialects sum 64-bit integers exactly (PostgreSQL as numeric); text keeps every digit on the way out.
      sql<string>`cast(coalesce(sum(cast(amount_received_base_units as bigint)), 0) as text)`.as('received'),
    ])
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('paid_at', '>=', from.toISOString())
    .where('paid_at', '<', to.toISOString())
    .where('kind', '=', 'payment')
    .where('status', '=', 'paid');
}

async function paidBetween(
  db: Db,
  merchantId: string,
  mode: KeyMode,
  from: Date,
  to: Date,
): Promise<PaidTotal> {
  const row = await paidIn(db, merchantId, mode, from, to).executeTakeFirstOrThrow();
  return { count: Number(row.count), receivedBaseUnits: BigInt(row.received) };
}

/** paid_at is ISO 8601 text in UTC: its first ten characters are its UTC day, in both databases. */
const PAID_DAY = sql<string>`substr(paid_at, 1, 10)`;

async function paidByDay(
  db: Db,
  merchantId: string,
  mode: KeyMode,
  from: Date,
  to: Date,
): Promise<DailyPaid[]> {
  const rows = await paidIn(db, merchantId, mode, from, to)
    .select(PAID_DAY.as('day'))
    .groupBy(PAID_DAY)
    .orderBy(PAID_DAY)
    .execute();
  return rows.map((row) => ({
    day: row.day,
    count: Number(row.count),
    receivedBaseUnits: BigInt(row.received),
  }));
}

type WaitingRead = (db: Db, merchantId: string, mode: KeyMode, limit: number) => Promise<string[]>;

const WAITING_READS: Readonly<Record<WaitingKind, WaitingRead>> = {
  // The merchant's share fails to go out (its delay notice is the payment's payout_delayed event).
  async payout_delayed(db, merchantId, mode, limit) {
    const rows = await db
      .selectFrom('payments')
      .select('id')
      .where('payout_blocked_since', 'is not', null)
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', mode)
      .where('kind', '=', 'payment')
      // By how long it has been delayed: the order of the partial index (migration 0026) that only delayed
      // payouts fill (a walk by creation would read the merchant's whole history).
      .orderBy('payout_blocked_since', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  },
  // An address is known and the merchant has not yet sent all the refund asks to its deposit address.
  async refund_awaiting_funds(db, merchantId, mode, limit) {
    const rows = await db
      .selectFrom('refunds as r')
      .leftJoin('payments as d', 'd.id', 'r.id')
      .select(['r.payment_id', (eb) => eb.fn.max('r.created_at').as('latest')])
      .where('r.announced_status', '=', 'awaiting_funds')
      .where('r.merchant_id', '=', merchantId)
      .where('r.mode', '=', mode)
      .where('r.canceled_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('d.id', 'is', null),
          eb(
            sql`cast(d.amount_received_base_units as bigint)`,
            '<',
            sql`cast(r.amount_base_units as bigint)`,
          ),
        ]),
      )
      .groupBy('r.payment_id')
      .orderBy('latest', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => row.payment_id);
  },
  // Events given up on, or being retried after a failed attempt: the merchant's endpoint does not take them.
  async webhook_failing(db, merchantId, mode, limit) {
    const rows = await db
      .selectFrom('events as e')
      .innerJoin('payments as p', 'p.id', 'e.payment_id')
      .select(['e.payment_id', (eb) => eb.fn.max('e.created_at').as('latest')])
      // The partial index's own condition, word for word (migration 0026), then what failing means.
      .where(sql<boolean>`e.delivery_status in ('pending', 'delivering', 'failed')`)
      .where((eb) =>
        eb.or([
          eb('e.delivery_status', '=', 'failed'),
          eb.and([eb('e.delivery_status', 'in', ['pending', 'delivering']), eb('e.attempt_count', '>', 0)]),
        ]),
      )
      .where('e.merchant_id', '=', merchantId)
      .where('p.mode', '=', mode)
      .groupBy('e.payment_id')
      .orderBy('latest', 'desc')
      .limit(limit)
      .execute();
    // The inner join leaves out events of no payment (a subscription's own timeline): this lists payments.
    return rows.flatMap((row) => (row.payment_id === null ? [] : [row.payment_id]));
  },
};
