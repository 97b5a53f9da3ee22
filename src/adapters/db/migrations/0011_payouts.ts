import { type Kysely, sql } from 'kysely';

/**
 * Payouts that never stall silently (docs/decisions/0011-payouts-that-never-stall.md):
 * - what went to each recipient, since forwarder version 2 can pay one and hold the other's share;
 * - a back-off per payment instead of "set aside after 5 failures": `settlement_retry_at`;
 * - since when, and why, the merchant's share (or only the commission) fails to go out, and whether the merchant
 *   was told (`payment.payout_delayed`);
 * - the relayer's gas balance as last read by the settler, so that every API process can report it.
 *
 * Existing payments were all settled by version 1, which sends both shares in one flush of the whole balance:
 * their split is floor(settled × bps / 10000) to the treasury, the rest to the merchant (exact for a payment
 * flushed once; a payment flushed several times differs by at most a base unit per extra flush).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['merchant_paid_base_units', 'treasury_paid_base_units']) {
    await db.schema
      .alterTable('payments')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(sql`'0'`))
      .execute();
  }
  for (const column of [
    'settlement_retry_at',
    'payout_blocked_since',
    'payout_blocked_reason',
    'commission_blocked_since',
    'commission_blocked_reason',
    'payout_delay_notified_at',
  ]) {
    await db.schema.alterTable('payments').addColumn(column, 'text').execute();
  }

  const settled = await db
    .selectFrom('payments')
    .select(['id', 'settled_base_units', 'commission_bps'])
    .where('settled_base_units', '<>', '0')
    .execute();
  for (const row of settled) {
    const total = BigInt(row.settled_base_units);
    const treasury = (total * BigInt(row.commission_bps)) / 10_000n;
    await db
      .updateTable('payments')
      .set({
        merchant_paid_base_units: (total - treasury).toString(),
        treasury_paid_base_units: treasury.toString(),
      })
      .where('id', '=', row.id)
      .execute();
  }

  // Payouts failing now: few rows, read by every settler pass (delay notices) and every metrics scrape.
  for (const share of ['payout', 'commission']) {
    await db.schema
      .createIndex(`payments_${share}_blocked`)
      .on('payments')
      .column(`${share}_blocked_since`)
      .where(sql.raw<boolean>(`${share}_blocked_since is not null`))
      .execute();
  }

  await db.schema
    .createTable('relayer_accounts')
    .addColumn('chain_id', 'integer', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    // Wei as TEXT integers, like money (docs/decisions/0004-storage.md).
    .addColumn('balance_wei', 'text', (c) => c.notNull())
    .addColumn('low_balance_wei', 'text', (c) => c.notNull())
    .addColumn('observed_at', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('relayer_accounts').execute();
  await db.schema.dropIndex('payments_commission_blocked').execute();
  await db.schema.dropIndex('payments_payout_blocked').execute();
  for (const column of [
    'payout_delay_notified_at',
    'commission_blocked_reason',
    'commission_blocked_since',
    'payout_blocked_reason',
    'payout_blocked_since',
    'settlement_retry_at',
    'treasury_paid_base_units',
    'merchant_paid_base_units',
  ]) {
    await db.schema.alterTable('payments').dropColumn(column).execute();
  }
}
