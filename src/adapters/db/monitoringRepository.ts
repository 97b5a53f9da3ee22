import { type ExpressionBuilder, sql } from 'kysely';
import type { GaslessRelaySummary, MonitoringStore, PayoutHealth } from '../../app/operations/ports.ts';
import type { PayoutPolicy } from '../../domain/payout.ts';
import type { Db } from './database.ts';
import { relayerBalances } from './relayerRecords.ts';
import type { DatabaseSchema } from './schema.ts';
import { unsettledPayments } from './unsettledPayments.ts';

/** Delivery statuses of an event still owed a delivery (domain/webhookDelivery.ts). */
const OWED = ['pending', 'delivering'];

/**
 * Aggregate reads for /metrics and /readyz. Each is one grouped query served by an index whose first column is
 * the grouped one (payments_status_expires, events_delivery_due), so a scrape costs an index scan, not a table scan.
 */
export function monitoringRepository(db: Db): MonitoringStore {
  return {
    async ping() {
      await sql`select 1`.execute(db);
    },
    countPaymentsByStatus: () => countPaymentsByStatus(db),
    webhookQueue: () => webhookQueue(db),
    payoutHealth: (policy, delayedSince) => payoutHealth(db, policy, delayedSince),
    relayerBalances: () => relayerBalances(db),
    gaslessRelays: (since) => gaslessRelays(db, since),
    async bridgeSteps() {
      // Open transfers only: the partial index bridge_transfers_open holds them (done ones leave it).
      const rows = await db
        .selectFrom('bridge_transfers')
        .select((eb) => [
          'step',
          eb.fn.countAll<string | number>().as('waiting'),
          eb.fn.min('created_at').as('oldest'),
        ])
        .where('step', '<>', 'done')
        .groupBy('step')
        .execute();
      return rows.map((r) => ({
        step: r.step,
        waiting: Number(r.waiting),
        oldestCreatedAt: new Date(r.oldest),
      }));
    },
  };
}

async function countPaymentsByStatus(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('payments')
    .select((eb) => ['status', eb.fn.countAll<string | number>().as('count')])
    .where('kind', '=', 'payment')
    .groupBy('status')
    .execute();
  return new Map(rows.map((row) => [row.status, Number(row.count)]));
}

async function webhookQueue(db: Db): ReturnType<MonitoringStore['webhookQueue']> {
  const rows = await db
    .selectFrom('events')
    .select((eb) => ['delivery_status', eb.fn.countAll<string | number>().as('count')])
    .groupBy('delivery_status')
    .execute();
  const oldest = await db
    .selectFrom('events')
    .select((eb) => eb.fn.min('created_at').as('oldest'))
    .where('delivery_status', 'in', OWED)
    .executeTakeFirst();
  return {
    byStatus: new Map(rows.map((row) => [row.delivery_status, Number(row.count)])),
    oldestOwedAt: oldest?.oldest ? new Date(oldest.oldest) : null,
  };
}

async function payoutHealth(db: Db, policy: PayoutPolicy, delayedSince: Date): Promise<PayoutHealth> {
  const count = (eb: ExpressionBuilder<DatabaseSchema, 'payments'>) => eb.fn.countAll<string | number>();
  // The settler's own query (`listUnsettled`), served by payments_unsettled.
  const owed = await unsettledPayments(db, policy.dustThresholdBaseUnits)
    .select((eb) => count(eb).as('count'))
    .executeTakeFirst();
  const delayed = await db
    .selectFrom('payments')
    .select((eb) => [count(eb).as('count'), eb.fn.min('payout_blocked_since').as('oldest')])
    .where('payout_blocked_since', 'is not', null)
    .where('payout_blocked_since', '<=', delayedSince.toISOString())
    .executeTakeFirst();
  const merchant = await db
    .selectFrom('payments')
    .select((eb) => ['payout_blocked_reason as reason', count(eb).as('count')])
    .where('payout_blocked_since', 'is not', null)
    .groupBy('payout_blocked_reason')
    .execute();
  const commission = await db
    .selectFrom('payments')
    .select((eb) => ['commission_blocked_reason as reason', count(eb).as('count')])
    .where('commission_blocked_since', 'is not', null)
    .groupBy('commission_blocked_reason')
    .execute();
  const delayedCount = Number(delayed?.count ?? 0);
  return {
    pending: Math.max(0, Number(owed?.count ?? 0) - delayedCount),
    delayed: delayedCount,
    oldestDelayedSince: delayed?.oldest ? new Date(delayed.oldest) : null,
    failing: [
      ...merchant.map((r) => ({
        share: 'merchant' as const,
        reason: r.reason ?? '',
        count: Number(r.count),
      })),
      ...commission.map((r) => ({
        share: 'commission' as const,
        reason: r.reason ?? '',
        count: Number(r.count),
      })),
    ],
  };
}

async function gaslessRelays(db: Db, since: Date): Promise<GaslessRelaySummary[]> {
  // Grouped by chain and status; fees summed here as exact integers (a few rows per group and hour).
  const counts = await db
    .selectFrom('gasless_authorizations')
    .select(['chain_id', 'status', (eb) => eb.fn.countAll<string | number>().as('count')])
    .groupBy(['chain_id', 'status'])
    .execute();
  const fees = await db
    .selectFrom('gasless_authorizations')
    .select(['chain_id', 'fee_wei', 'finished_at'])
    .where('fee_wei', 'is not', null)
    .execute();
  const byChain = new Map<
    number,
    { byStatus: Map<string, number>; feeWeiTotal: bigint; feeWeiSince: bigint }
  >();
  const of = (chainId: number) => {
    let entry = byChain.get(chainId);
    if (!entry) {
      entry = { byStatus: new Map(), feeWeiTotal: 0n, feeWeiSince: 0n };
      byChain.set(chainId, entry);
    }
    return entry;
  };
  for (const row of counts) of(Number(row.chain_id)).byStatus.set(row.status, Number(row.count));
  const sinceIso = since.toISOString();
  for (const row of fees) {
    const entry = of(Number(row.chain_id));
    const fee = BigInt(row.fee_wei!);
    entry.feeWeiTotal += fee;
    if (row.finished_at !== null && row.finished_at >= sinceIso) entry.feeWeiSince += fee;
  }
  return [...byChain].map(([chainId, entry]) => ({ chainId, ...entry }));
}
