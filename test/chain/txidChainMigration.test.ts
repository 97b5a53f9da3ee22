import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { toPayment } from '../../src/adapters/db/paymentRepository.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { CHAIN_ID, testPayment } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, merchantRow, paymentRowBefore0039 } from '../helpers/migrationRows.ts';

/**
 * Migration 0039 on rows written before it (decision 0039): a payment's `txid` gets the chain of its recorded
 * transfer of that hash (a source chain's or the home chain's), a `txid` without a recorded transfer the
 * payment's own chain (the only one there was), and a payment without a `txid` none.
 */
const NOW = new Date('2026-01-01T01:00:00.000Z').toISOString();
const hash = (byte: string) => `0x${byte.repeat(32)}`;

/** A payment's row as written before migration 0039 (test/helpers/migrationRows.ts). */
const rowBefore0039 = paymentRowBefore0039;

describe.each(dialects)('migration 0039 (the chain of txid) on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  const onBase = testPayment(1, { status: 'paid', txid: hash('b1') });
  const onHome = testPayment(2, { status: 'paid', txid: hash('a1') });
  const unrecorded = testPayment(3, { status: 'paid', txid: hash('c1') });
  const unpaid = testPayment(4);

  const transfer = (payment: Payment, chainId: number, txHash: string) => ({
    id: `${chainId}:${txHash}:0`,
    chain_id: chainId,
    payment_id: payment.id,
    tx_hash: txHash,
    log_index: 0,
    block_number: 10,
    block_hash: hash('0f'),
    block_timestamp: NOW,
    token_address: payment.deposit!.tokenAddress.toLowerCase(),
    token_symbol: 'USDC',
    from_address: `0x${'01'.repeat(20)}`,
    to_address: payment.deposit!.depositAddress.toLowerCase(),
    amount_base_units: '10000000',
    final: 1,
    orphaned: 0,
    created_at: NOW,
  });

  beforeAll(async () => {
    const migrated = await databaseMigratedTo(dialect, '0031_bridge_fee');
    ({ handle, drop } = migrated);
    const { migrator } = migrated;
    await handle.db.insertInto('merchants').values(merchantRow('mch_1', NOW)).execute();
    await handle.db
      .insertInto('payments')
      .values([onBase, onHome, unrecorded, unpaid].map(rowBefore0039))
      .execute();
    await handle.db
      .insertInto('transfers')
      .values([
        transfer(onBase, 8453, hash('b1')),
        // Another transfer of the same payment, on the home chain, is not the one txid names.
        transfer(onBase, CHAIN_ID, hash('b2')),
        transfer(onHome, CHAIN_ID, hash('a1')),
      ])
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  const read = async (payment: Payment) =>
    toPayment(
      await handle.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', payment.id)
        .executeTakeFirstOrThrow(),
    );

  it('gives txid the chain of its recorded transfer, else the payment’s own, and none without a txid', async () => {
    expect(await read(onBase)).toMatchObject({ txid: hash('b1'), txidChainId: 8453 });
    expect(await read(onHome)).toMatchObject({ txid: hash('a1'), txidChainId: CHAIN_ID });
    expect(await read(unrecorded)).toMatchObject({ txid: hash('c1'), txidChainId: CHAIN_ID });
    expect(await read(unpaid)).toMatchObject({ txid: null, txidChainId: null });
  });
});
