import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeRepository } from '../../src/adapters/db/bridgeRepository.ts';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { paymentRow, toPayment } from '../../src/adapters/db/paymentRepository.ts';
import { settlementRepository } from '../../src/adapters/db/settlementRepository.ts';
import { commissionOf } from '../../src/domain/money.ts';
import { payoutStateOf } from '../../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY, payoutAfterFlush } from '../../src/domain/payout.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';

/**
 * The CCTP fee counted in the payment's payout (decision 0034): what CCTP kept is received but never paid out,
 * so a payment whose fee is at or above the dust threshold must not stay `pending` and listed unsettled forever,
 * while money really left in the forwarder (the same amount, not a fee) still is. Through the real repositories:
 * the bridge records the mint, the settler its flush of what arrived.
 */
const RECEIVED = 10_000_000_000n; // 10 000 USDC paid on the source chain
const DUST = DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits; // 0.01 USDC
const SOURCE_CHAIN = 8453;
const SOURCE_USDC = `0x${'83'.repeat(20)}`;
const AT = new Date('2026-01-01T01:00:00.000Z');

describe.each(dialects)('a payment whose CCTP fee was taken on its way home, on %s', (dialect) => {
  let database: TestDatabase;
  let n = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await database.handle.db.insertInto('merchants').values(merchantRow(testMerchant())).execute();
  });
  afterAll(() => database?.drop());

  /** Paid on the source chain, burnt, attested with `fee` taken, minted (received − fee) on the home chain. */
  async function bridgedPayment(fee: bigint): Promise<string> {
    n += 1;
    const fixture = testPayment(n);
    const id = randomUUID();
    const { db } = database.handle;
    await db
      .insertInto('payments')
      .values({
        ...paymentRow({ ...fixture, id }),
        status: 'paid',
        amount_received_base_units: RECEIVED.toString(),
        paid_at: AT.toISOString(),
      })
      .execute();
    await db
      .insertInto('deposit_balances')
      .values({
        owner_id: id,
        chain_id: SOURCE_CHAIN,
        token_address: SOURCE_USDC,
        accepted: 1,
        received_base_units: RECEIVED.toString(),
      })
      .execute();
    const bridge = bridgeRepository(database.handle);
    const transferId = randomUUID();
    await bridge.open({
      id: transferId,
      paymentId: id,
      sourceChainId: SOURCE_CHAIN,
      sourceDomain: 6,
      homeChainId: fixture.deposit!.chainId,
      tokenAddress: SOURCE_USDC,
      depositAddress: fixture.deposit!.depositAddress,
      amountBaseUnits: RECEIVED,
      speed: 'fast',
      // The bound fixed before the burn: more than CCTP ends up keeping.
      maxFeeBaseUnits: 2n * fee,
      // Within what the quote allowed (a fast network's cap).
      quotedMaxFeeBaseUnits: 10n * fee,
      minFinalityThreshold: 1000,
      step: 'burn',
      burnTx: null,
      burnTxHash: null,
      burnBlockNumber: null,
      message: null,
      attestedMessage: null,
      attestation: null,
      cctpNonce: null,
      feeExecutedBaseUnits: null,
      mintTx: null,
      mintTxHash: null,
      mintedBaseUnits: null,
      expiredAt: null,
      reattestRequestedAt: null,
      attempts: 0,
      nextAttemptAt: null,
      lastError: null,
      stalledSince: null,
      createdAt: AT,
      updatedAt: AT,
      completedAt: null,
    });
    const txHash = `0x${n.toString(16).padStart(64, '0')}`;
    await bridge.recordBurn(transferId, { txHash, blockNumber: 10n, message: '0x01' }, AT);
    // Burnt, not minted: the bound is held back from the payout shown, nothing is settled yet.
    expect(await feeColumns(id)).toEqual({ fee: '0', bound: (2n * fee).toString(), settled: '0' });
    await bridge.recordAttestation(
      transferId,
      { message: '0x01', attestation: '0x02', cctpNonce: txHash, feeExecutedBaseUnits: fee },
      AT,
    );
    expect(
      await bridge.recordMint(
        transferId,
        { txHash, mintedBaseUnits: RECEIVED - fee, tokenAddress: fixture.deposit!.tokenAddress },
        AT,
      ),
    ).toBe(true);
    return id;
  }

  async function feeColumns(id: string) {
    const row = await database.handle.db
      .selectFrom('payments')
      .select(['bridge_fee_base_units', 'bridge_fee_bound_base_units', 'settled_base_units'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return {
      fee: row.bridge_fee_base_units,
      bound: row.bridge_fee_bound_base_units,
      settled: row.settled_base_units,
    };
  }

  /** The settler flushes `amount` of the forwarder: merchant and treasury shares of it, as the flush splits it. */
  async function flush(id: string, amount: bigint): Promise<void> {
    await settlementRepository(database.handle).transaction(async (t) => {
      const [payment] = await t.lockPayments([id]);
      const treasury = commissionOf(amount, payment!.quote.commissionBps);
      await t.savePayout(
        id,
        payoutAfterFlush(payment!.payout, {
          merchantSentBaseUnits: amount - treasury,
          feeSentBaseUnits: treasury,
          merchantOwedBaseUnits: 0n,
          feeOwedBaseUnits: 0n,
          txHash: `0x${'ab'.repeat(32)}`,
          at: AT,
        }),
        AT,
      );
    });
  }

  async function payoutOf(id: string) {
    const row = await database.handle.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const payment = toPayment(row);
    return {
      settled: row.settled_base_units,
      bridgeFee: row.bridge_fee_base_units,
      status: payoutStateOf(payment, payment, DEFAULT_PAYOUT_POLICY, AT).status,
    };
  }

  async function listedUnsettled(id: string): Promise<boolean> {
    const unsettled = await settlementRepository(database.handle).listUnsettled({
      dustThresholdBaseUnits: DUST,
      failingOnly: false,
      limit: 1_000,
    });
    return unsettled.some((u) => u.payment.id === id);
  }

  it.each([
    ['just below', DUST - 1n],
    ['at', DUST],
    ['just above', DUST + 1n],
    ['far above (1 bp of 10 000 USDC)', 1_000_000n],
  ])(
    'a fee %s the dust threshold: sent and settled once everything that arrived went out',
    async (_, fee) => {
      const id = await bridgedPayment(fee);
      // Minted, not flushed yet: due, and the payout waits for the flush.
      expect(await listedUnsettled(id)).toBe(true);
      expect(await payoutOf(id)).toEqual({
        settled: fee.toString(),
        bridgeFee: fee.toString(),
        status: 'pending',
      });

      expect(await feeColumns(id)).toEqual({ fee: fee.toString(), bound: '0', settled: fee.toString() });

      await flush(id, RECEIVED - fee);
      expect(await payoutOf(id)).toEqual({
        settled: RECEIVED.toString(),
        bridgeFee: fee.toString(),
        status: 'sent',
      });
      expect(await listedUnsettled(id)).toBe(false);
    },
  );

  it('the same amount left in the forwarder, not taken as a fee, is still owed', async () => {
    // Free transfer, but the settler flushed only part of it: what is left (the dust threshold) is due.
    const id = await bridgedPayment(0n);
    await flush(id, RECEIVED - DUST);
    expect(await payoutOf(id)).toEqual({
      settled: (RECEIVED - DUST).toString(),
      bridgeFee: '0',
      status: 'pending',
    });
    expect(await listedUnsettled(id)).toBe(true);
  });
});
