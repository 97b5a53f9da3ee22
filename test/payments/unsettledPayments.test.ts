import { CompiledQuery, type Insertable, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitoringRepository } from '../../src/adapters/db/monitoringRepository.ts';
import type { PaymentsTable } from '../../src/adapters/db/schema.ts';
import { settlementRepository } from '../../src/adapters/db/settlementRepository.ts';
import { unsettledBalances, unsettledPayments } from '../../src/adapters/db/unsettledPayments.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { merchantRow } from '../helpers/migrationRows.ts';

/**
 * "Not yet settled" is written once (src/adapters/db/unsettledPayments.ts) for the settler's list and for the
 * count /metrics and /readyz report, and must stay the predicate of the partial indexes that serve it: a partial
 * index serves a query only when the query implies its predicate, and a rewording the planner cannot match
 * silently turns the settler's pass into a scan of every payment ever made.
 */
const CHAIN_ID = 31337;
const DUST = 5n;
const NOW = '2026-01-01T00:00:00.000Z';
const SETTLED = 300;

const paymentId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

function payment(i: number, fields: Partial<Insertable<PaymentsTable>>): Insertable<PaymentsTable> {
  return {
    id: paymentId(i),
    merchant_id: 'merchant',
    amount_minor_units: '1000',
    currency: 'USD',
    exchange_rate: '1',
    rate_source: 'fixed',
    rate_observed_at: NOW,
    usdc_amount_base_units: '10000000',
    commission_bps: 100,
    commission_base_units: '100000',
    merchant_share_base_units: '9900000',
    underpayment_tolerance_bps: 0,
    payout_address: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
    webhook_url: null,
    order_id: null,
    customer_email: null,
    status: 'paid',
    amount_received_base_units: '10000000',
    settled_base_units: '10000000',
    paid_at: NOW,
    late: 0,
    expires_at: NOW,
    created_at: new Date(Date.parse(NOW) + i * 1000).toISOString(),
    updated_at: NOW,
    chain_id: CHAIN_ID,
    token_address: `0x${'11'.repeat(20)}`,
    factory_address: `0x${'22'.repeat(20)}`,
    treasury_address: `0x${'33'.repeat(20)}`,
    deposit_address: `0x${i.toString(16).padStart(40, '0')}`,
    txid: null,
    paid_token_address: null,
    paid_token_symbol: null,
    payout_tx_hash: null,
    settled_at: null,
    return_url: null,
    ...fields,
    // What went out is the merchant's share and the commission; only their sum matters here.
    merchant_paid_base_units: fields.settled_base_units ?? '10000000',
  };
}

/** The payments still owed at a dust threshold of 5 base units, beside the many long settled. */
const OWED = {
  due: payment(SETTLED, { settled_base_units: '0' }),
  failedDue: payment(SETTLED + 1, {
    status: 'failed',
    amount_received_base_units: '4000000',
    settled_base_units: '0',
  }),
  blockedDust: payment(SETTLED + 2, {
    settled_base_units: '9999998',
    payout_blocked_since: NOW,
    payout_blocked_reason: 'blacklisted',
  }),
  commissionBlockedDust: payment(SETTLED + 3, {
    settled_base_units: '9999999',
    commission_blocked_since: NOW,
    commission_blocked_reason: 'paused',
  }),
};
const NOT_OWED = {
  dust: payment(SETTLED + 4, { settled_base_units: '9999996' }),
  processing: payment(SETTLED + 5, { status: 'processing', settled_base_units: '0' }),
};

describe.each(dialects)('payments not yet settled on %s', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { db } = database.handle;
    await db.insertInto('merchants').values(merchantRow('merchant', NOW)).execute();
    const settled = Array.from({ length: SETTLED }, (_, i) => payment(i, {}));
    await db
      .insertInto('payments')
      .values([...settled, ...Object.values(OWED), ...Object.values(NOT_OWED)])
      .execute();
    await db
      .insertInto('deposit_balances')
      .values(
        [...settled, OWED.due].map((p) => ({
          owner_id: p.id,
          chain_id: CHAIN_ID,
          token_address: p.token_address!,
          accepted: 1,
          received_base_units: p.amount_received_base_units,
          settled_base_units: p.settled_base_units,
        })),
      )
      .execute();
    // Statistics as a live database has them: most payments settled long ago.
    await sql`analyze`.execute(db);
  });
  afterAll(() => database?.drop());

  it("the settler's list and the monitoring count agree on what is owed", async () => {
    const listed = await settlementRepository(database.handle).listUnsettled({
      dustThresholdBaseUnits: DUST,
      failingOnly: false,
      limit: 100,
    });
    expect(listed.map((row) => row.payment.id).sort()).toEqual(Object.values(OWED).map((p) => p.id));
    const health = await monitoringRepository(database.handle.db).payoutHealth(
      { dustThresholdBaseUnits: DUST, delayedAfterMs: 0 } as never,
      new Date(NOW),
    );
    expect(health.pending + health.delayed).toBe(listed.length);
  });

  it('the payments query is one payments_unsettled serves', async () => {
    const query = unsettledPayments(database.handle.db, DUST).selectAll().orderBy('created_at').limit(10);
    expect(await planOf(database, query.compile(), 'payments_unsettled')).toContain('payments_unsettled');
  });

  it('the balances query is one deposit_balances_unsettled serves', async () => {
    const query = unsettledBalances(database.handle.db, CHAIN_ID, new Date(NOW))
      .selectAll('payments')
      .limit(10);
    expect(await planOf(database, query.compile(), 'deposit_balances_unsettled')).toContain(
      'deposit_balances_unsettled',
    );
  });
});

/**
 * The query's plan as text. SQLite: planned with the index forced (`INDEXED BY`), which SQLite refuses ("no
 * query solution") when the query does not imply the index's predicate. PostgreSQL: planned with sequential and
 * plain index scans priced out (PostgreSQL prices a partial index as if its predicate kept most rows, and then
 * prefers walking the primary key), which leaves bitmap scans: of an index whose predicate the query implies.
 */
async function planOf(database: TestDatabase, query: CompiledQuery, index: string): Promise<string> {
  const { db, dialect } = database.handle;
  if (dialect === 'sqlite') {
    const table = index === 'payments_unsettled' ? '"payments"' : '"deposit_balances" as "b"';
    const forced = query.sql.replace(`from ${table}`, `from ${table} indexed by ${index}`);
    expect(forced).not.toBe(query.sql);
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${forced}`, [...query.parameters]),
    );
    return plan.rows.map((row) => row.detail).join('\n');
  }
  return db.connection().execute(async (connection) => {
    await sql`set enable_seqscan = off`.execute(connection);
    await sql`set enable_indexscan = off`.execute(connection);
    try {
      const plan = await connection.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
      );
      return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await sql`reset enable_seqscan`.execute(connection);
      await sql`reset enable_indexscan`.execute(connection);
    }
  });
}
