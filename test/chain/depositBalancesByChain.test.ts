import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { ledgerRepository } from '../../src/adapters/db/ledgerRepository.ts';
import { settlementRepository } from '../../src/adapters/db/settlementRepository.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import { CHAIN_ID, testPayment, testTransfer, USDC } from '../fakes/paymentFixture.ts';
import { dialects } from '../helpers/database.ts';
import { databaseMigratedTo, merchantRow, paymentRowBefore0039 } from '../helpers/migrationRows.ts';

/**
 * Migration 0027: a deposit address's balances are kept per chain, even where two chains share a token address
 * (a source chain's money is burnt, the home chain's flushed), rows written before it are kept, and the home
 * row's `bridged_base_units` (what CCTP minted in) is due for a flush like what was received.
 */
const SOURCE_CHAIN_ID = 8453;
const NOW = new Date('2026-01-01T01:00:00.000Z');
const POLICY = { dustThresholdBaseUnits: 5n, now: NOW, limit: 10 };

describe.each(dialects)('deposit balances per chain on %s', (dialect) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  const before = testPayment(1, { status: 'paid' });
  const crossChain = testPayment(2);

  beforeAll(async () => {
    const migrated = await databaseMigratedTo(dialect, '0026_merchant_home');
    ({ handle, drop } = migrated);
    const { migrator } = migrated;
    await handle.db.insertInto('merchants').values(merchantRow('mch_1', NOW.toISOString())).execute();
    await handle.db
      .insertInto('payments')
      .values([paymentRowBefore0039(before), paymentRowBefore0039(crossChain)])
      .execute();
    // A row as 0026 kept it: received 10 USDC, 4 flushed already.
    await handle.db
      .insertInto('deposit_balances')
      .values({
        owner_id: before.id,
        chain_id: CHAIN_ID,
        token_address: USDC,
        accepted: 1,
        received_base_units: '10000000',
        merchant_paid_base_units: '3960000',
        treasury_paid_base_units: '40000',
        settled_base_units: '4000000',
      })
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
  });
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  const balances = (ownerId: string) =>
    handle.db
      .selectFrom('deposit_balances')
      .select([
        'chain_id',
        'token_address',
        'received_base_units',
        'bridged_base_units',
        'settled_base_units',
      ])
      .where('owner_id', '=', ownerId)
      .orderBy('chain_id')
      .execute();

  it('keeps the rows written before it, with nothing bridged', async () => {
    expect(await balances(before.id)).toEqual([
      {
        chain_id: CHAIN_ID,
        token_address: USDC,
        received_base_units: '10000000',
        bridged_base_units: '0',
        settled_base_units: '4000000',
      },
    ]);
    const [candidate] = await settlementRepository(handle).candidates(CHAIN_ID, POLICY);
    expect(candidate?.paymentId).toBe(before.id);
    expect(candidate?.unsettledBaseUnits).toBe(6_000_000n);
  });

  it('saves what each chain received apart, even under the same token address', async () => {
    const ledger = ledgerRepository(handle);
    await ledger.transaction(async (tx) => {
      await tx.insertTransfers([
        testTransfer(crossChain, 11, { amountBaseUnits: 4_000_000n }),
        {
          ...testTransfer(crossChain, 12, { amountBaseUnits: 6_000_001n }),
          id: `${SOURCE_CHAIN_ID}:0x${'12'.repeat(32)}:0`,
          chainId: SOURCE_CHAIN_ID,
        },
      ]);
      await refreshPayments(tx, [crossChain.id], NOW);
    });
    expect(await balances(crossChain.id)).toEqual([
      {
        chain_id: CHAIN_ID,
        token_address: USDC,
        received_base_units: '4000000',
        bridged_base_units: '0',
        settled_base_units: '0',
      },
      {
        chain_id: SOURCE_CHAIN_ID,
        token_address: USDC,
        received_base_units: '6000001',
        bridged_base_units: '0',
        settled_base_units: '0',
      },
    ]);
    const payment = await ledger.transaction((tx) => tx.lockPayment(crossChain.id));
    expect(payment?.status).toBe('paid');
    expect(payment?.amountReceivedBaseUnits).toBe(10_000_001n);
  });

  it("flushes on one chain count against that chain's row only", async () => {
    await settlementRepository(handle).transaction((t) =>
      t.recordFlush(crossChain.id, CHAIN_ID, USDC, 3_960_000n, 40_000n),
    );
    const rows = await balances(crossChain.id);
    expect(rows.map((r) => r.settled_base_units)).toEqual(['4000000', '0']);
  });

  it('a home row is due for what was minted into it, a source row never on the home chain', async () => {
    await handle.db
      .updateTable('deposit_balances')
      .set({ bridged_base_units: '5999401' })
      .where('owner_id', '=', crossChain.id)
      .where('chain_id', '=', CHAIN_ID)
      .execute();
    const candidates = await settlementRepository(handle).candidates(CHAIN_ID, POLICY);
    const home = candidates.find((c) => c.paymentId === crossChain.id);
    expect(home?.unsettledBaseUnits).toBe(5_999_401n);
    expect(candidates.every((c) => c.chainId === CHAIN_ID)).toBe(true);
    const onSource = await settlementRepository(handle).candidates(SOURCE_CHAIN_ID, POLICY);
    // The source row is a burn's business (it would be a candidate of a settler of that chain, which none is).
    expect(onSource.map((c) => c.unsettledBaseUnits)).toEqual([6_000_001n]);
  });
});
