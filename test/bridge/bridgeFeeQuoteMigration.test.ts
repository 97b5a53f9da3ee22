import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { toPayment } from '../../src/adapters/db/paymentRepository.ts';
import { cctpFeeFields } from '../../src/domain/webhookEvent.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, merchantRow, paymentRowBefore0039 } from '../helpers/migrationRows.ts';

/**
 * Migration 0032 on rows written before it (decision 0035): every burn made before was bound within its quote
 * (standard at 0, fast within the cap), so each transfer's quoted allowance is its own bound, a payment sums the
 * allowances of what was burnt (a transfer still in step `burn` is not burnt), and none is above its quote.
 */
const NOW = new Date('2026-01-01T01:00:00.000Z').toISOString();

describe.each(dialects)('migration 0032 (the fee against the quote) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  const minted = testPayment(1, { status: 'paid' });
  const burnt = testPayment(2, { status: 'paid' });
  const opened = testPayment(3, { status: 'paid' });

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
    const migrated = await databaseMigratedTo(dialect, '0031_bridge_fee');
    ({ handle, drop } = migrated);
    const { migrator } = migrated;
    await handle.db.insertInto('merchants').values(merchantRow('mch_1', NOW)).execute();
    const paid = { status: 'paid', amount_received_base_units: '10000000000' };
    const fees = (taken: string, bound: string) => ({
      bridge_fee_base_units: taken,
      bridge_fee_bound_base_units: bound,
    });
    await handle.db
      .insertInto('payments')
      .values([
        // Every row names the same columns: SQLite has no DEFAULT in a multi-row VALUES.
        { ...paymentRowBefore0039(minted), ...paid, ...fees('1000000', '0'), settled_base_units: '1000000' },
        { ...paymentRowBefore0039(burnt), ...paid, ...fees('0', '1500000'), settled_base_units: '0' },
        { ...paymentRowBefore0039(opened), ...paid, ...fees('0', '0'), settled_base_units: '0' },
      ])
      .execute();
    await handle.db
      .insertInto('bridge_transfers')
      .values([
        transfer('t1', minted.id, 'done', '2000000', '9999000000'),
        transfer('t2', burnt.id, 'mint', '1500000', null),
        transfer('t3', opened.id, 'burn', '3000000', null),
      ])
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it("gives each transfer its own bound as its quote's allowance", async () => {
    const rows = await handle.db
      .selectFrom('bridge_transfers')
      .select(['id', 'quoted_max_fee_base_units'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 't1', quoted_max_fee_base_units: '2000000' },
      { id: 't2', quoted_max_fee_base_units: '1500000' },
      { id: 't3', quoted_max_fee_base_units: '3000000' },
    ]);
  });

  it('sums what was burnt per payment, none above its quote', async () => {
    const stated = async (id: string) => {
      const row = await handle.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const payment = toPayment(row);
      return [
        row.bridge_fee_quoted_base_units,
        row.bridge_burns_above_quote,
        cctpFeeFields(payment).cctp_fee,
      ];
    };
    expect(await stated(minted.id)).toEqual([
      '2000000',
      0,
      {
        taken: '1.00',
        pending_max: '0.00',
        borne_by: 'merchant_share',
        quoted_max: '2.00',
        above_quote: false,
      },
    ]);
    expect(await stated(burnt.id)).toEqual([
      '1500000',
      0,
      {
        taken: '0.00',
        pending_max: '1.50',
        borne_by: 'merchant_share',
        quoted_max: '1.50',
        above_quote: false,
      },
    ]);
    expect(await stated(opened.id)).toEqual(['0', 0, undefined]);
  });
});
