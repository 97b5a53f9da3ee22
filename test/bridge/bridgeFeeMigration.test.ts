import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { toPayment } from '../../src/adapters/db/paymentRepository.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, merchantRow, paymentRowBefore0039 } from '../helpers/migrationRows.ts';

/**
 * Migration 0031 on rows written before it: a payment whose fast transfer was minted has its fee counted as
 * settled (its payout no longer owes what CCTP kept), one whose burn is not minted yet has its bound held back,
 * and a payment paid on the home chain is left as it was.
 */
const NOW = new Date('2026-01-01T01:00:00.000Z').toISOString();

describe.each(dialects)('migration 0031 (the CCTP fee) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  const minted = testPayment(1, { status: 'paid' });
  const burnt = testPayment(2, { status: 'paid' });
  const home = testPayment(3, { status: 'paid' });

  const transfer = (id: string, paymentId: string, step: string, maxFee: string, minted: string | null) => ({
    id,
    payment_id: paymentId,
    source_chain_id: 8453,
    source_domain: 6,
    home_chain_id: 137,
    token_address: `0x${'83'.repeat(20)}`,
    deposit_address: `0x${'de'.repeat(20)}`,
    amount_base_units: '10000000000',
    speed: 'fast',
    max_fee_base_units: maxFee,
    min_finality_threshold: 1000,
    step,
    minted_base_units: minted,
    created_at: NOW,
    updated_at: NOW,
  });

  beforeAll(async () => {
    const migrated = await databaseMigratedTo(dialect, '0027_bridge_settlement');
    ({ handle, drop } = migrated);
    const { migrator } = migrated;
    await handle.db.insertInto('merchants').values(merchantRow('mch_1', NOW)).execute();
    const paid = { status: 'paid', amount_received_base_units: '10000000000' };
    await handle.db
      .insertInto('payments')
      .values([
        // 1 USDC kept by CCTP; everything that arrived (9 999) paid out: stuck unsettled before 0031.
        {
          ...paymentRowBefore0039(minted),
          ...paid,
          merchant_paid_base_units: '9899010000',
          treasury_paid_base_units: '99990000',
          settled_base_units: '9999000000',
        },
        {
          ...paymentRowBefore0039(burnt),
          ...paid,
          merchant_paid_base_units: '0',
          treasury_paid_base_units: '0',
          settled_base_units: '0',
        },
        {
          ...paymentRowBefore0039(home),
          ...paid,
          merchant_paid_base_units: '9900000000',
          treasury_paid_base_units: '100000000',
          settled_base_units: '10000000000',
        },
      ])
      .execute();
    await handle.db
      .insertInto('bridge_transfers')
      .values([
        transfer('t1', minted.id, 'done', '2000000', '9999000000'),
        transfer('t2', burnt.id, 'mint', '1500000', null),
      ])
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  const read = async (id: string) => {
    const row = await handle.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // toPayment checks merchant + treasury + fee = settled.
    const { payout } = toPayment(row);
    return [row.settled_base_units, payout.bridgeFeeBaseUnits, payout.bridgeFeeBoundBaseUnits];
  };

  it('counts a minted fee as settled, holds a pending bound back, and leaves a home-chain payment alone', async () => {
    expect(await read(minted.id)).toEqual(['10000000000', 1_000_000n, 0n]);
    expect(await read(burnt.id)).toEqual(['0', 0n, 1_500_000n]);
    expect(await read(home.id)).toEqual(['10000000000', 0n, 0n]);
  });
});
