import type { Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testTokenMessengerV2Abi } from '../../src/adapters/chain/contractAbis.ts';
import { ledgerRepository } from '../../src/adapters/db/ledgerRepository.ts';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { toPayment } from '../../src/adapters/db/paymentRepository.ts';
import { attestOnce } from '../../src/app/bridge/attestStep.ts';
import { burnOnce } from '../../src/app/bridge/burnStep.ts';
import type { SourceBridgeOptions } from '../../src/app/bridge/options.ts';
import type { TransferSpeed } from '../../src/app/bridge/ports.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import { settleWithMintsOnce } from '../../src/app/settlement/settleWithMints.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY, settlementRetryDelayMs } from '../../src/domain/payout.ts';
import { cctpFeeFields } from '../../src/domain/webhookEvent.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import {
  type BridgeWorker,
  bridgeWorker,
  customerPays,
  depositBalancesOf,
  mintAndFlush as flushMinted,
  mined,
  usdcOf,
} from '../helpers/bridgeWorker.ts';
import { type CctpChain, type CctpChains, CIRCLE, startCctpChains } from '../helpers/cctpChains.ts';
import { TestClock } from '../helpers/clock.ts';
import { HOME_SETTLE_OPTIONS, insertCrossChainPayment } from '../helpers/crossChainScene.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';

const FAST_FEE_BPS = 1;
/** The cap written in the factory's table for Base: the most any of its forwarders may offer. */
const ROUTE_CAP_BPS = 10;
const COMMISSION_BPS = 100;
const CONFIRMATIONS = { fast: 1, standard: 3 };
const CUSTOMER = 3;
const PAID = 10_000_000n; // 10 USDC
/** Circle's minimum in thousandths of a basis point: 1 000 is 1 bp. */
const ONE_BP = 1_000n;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: ROUTE_CAP_BPS },
    ],
    { confirmations: CONFIRMATIONS, fastFeeBps: FAST_FEE_BPS },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
});
afterAll(async () => {
  await net?.stop();
});
afterEach(async () => {
  await setMinFee(0n);
});

/** Circle's fee switch on Base (its owner holds the min-fee controller role in the test contracts). */
async function setMinFee(minFee: bigint): Promise<void> {
  await mined(
    base,
    await base.anvil.wallet(CIRCLE).writeContract({
      address: base.cctp.tokenMessenger,
      abi: testTokenMessengerV2Abi,
      functionName: 'setMinFee',
      args: [minFee],
    }),
  );
}

describe.each(dialects)("CCTP's minimum fee on a payment paid on Base, on %s", (dialect) => {
  let database: TestDatabase;
  let clock: TestClock;
  let paymentNumber = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await database.handle.db
      .insertInto('merchants')
      .values(merchantRow(testMerchant({ commissionBps: COMMISSION_BPS })))
      .execute();
  });
  afterAll(() => database?.drop());

  /** A payment of 10 USDC, paid in full on Base, its transfer recorded final as the watcher records it. */
  async function paidOnBase(): Promise<Payment> {
    const payment = await insertCrossChainPayment({
      handle: database.handle,
      net,
      home: polygon,
      number: ++paymentNumber,
      now: clock.now(),
      commissionBps: COMMISSION_BPS,
    });
    const { id } = payment;
    const { depositAddress } = payment.deposit!;
    const receipt = await customerPays(base, CUSTOMER, depositAddress, PAID);
    const block = await base.anvil.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    await ledgerRepository(database.handle).transaction(async (tx) => {
      await tx.insertTransfers([
        {
          id: `${base.chainId}:${receipt.blockHash}:0`,
          chainId: base.chainId,
          paymentId: id,
          txHash: receipt.transactionHash,
          logIndex: 0,
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
          blockTimestamp: new Date(Number(block.timestamp) * 1000),
          tokenAddress: base.cctp.usdc.toLowerCase(),
          tokenSymbol: 'USDC',
          fromAddress: receipt.from.toLowerCase(),
          toAddress: depositAddress.toLowerCase(),
          amountBaseUnits: PAID,
          final: true,
          orphaned: false,
        },
      ]);
      await refreshPayments(tx, [id], clock.now());
    });
    return payment;
  }

  const freshWorker = () =>
    bridgeWorker({
      handle: database.handle,
      clock,
      home: polygon,
      source: base,
      attestationUrl: net.attestation.url,
    });

  /** The operator's configuration of Base: its speed and its cap (PAYLINK_BASE_MAX_FEE_BPS). */
  const sourceOptions = (speed: TransferSpeed, maxFeeBps = ROUTE_CAP_BPS): SourceBridgeOptions => ({
    homeChainId: polygon.chainId,
    tokenAddress: base.cctp.usdc,
    speed,
    maxFeeBps,
    // Since decision 0037 (the fast burn's depth): a transfer one block deep may be burnt fast.
    fastConfirmations: 1,
    dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
    relayerLowBalanceWei: 10n ** 18n,
    attestationPollMs: 2_000,
    attestationExpectedMs: 60_000,
  });
  const settleOptions = HOME_SETTLE_OPTIONS;

  /** Our burn sent, mined, recorded final; attested once Base has the confirmations; minted and flushed. */
  async function burnAndSettle(worker: BridgeWorker, options: SourceBridgeOptions): Promise<void> {
    const sent = await burnOnce(worker.source, options);
    if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${JSON.stringify(sent)}`);
    await mined(base, sent.txHash as Hex);
    expect((await burnOnce(worker.source, options)).kind).toBe('burnt');
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS[options.speed] });
    clock.advance(60_000);
    expect((await attestOnce(worker.source, options)).attested).toHaveLength(1);
    await flushMinted(worker, polygon, settleOptions);
  }

  async function bridgeRow(paymentId: string) {
    const rows = await database.handle.db
      .selectFrom('bridge_transfers')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .execute();
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }

  async function storedPayment(id: string): Promise<Payment> {
    const row = await database.handle.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return toPayment(row);
  }

  /** Merchant and treasury hold exactly their shares of what reached Polygon; nothing is left anywhere. */
  async function expectSettled(payment: Payment, arrived: bigint): Promise<void> {
    const treasuryShare = (arrived * BigInt(COMMISSION_BPS)) / 10_000n;
    expect(await usdcOf(polygon, payment.payoutAddress)).toBe(arrived - treasuryShare);
    expect(await usdcOf(polygon, payment.deposit!.treasuryAddress)).toBe(treasuryShare);
    expect(await usdcOf(polygon, payment.deposit!.depositAddress)).toBe(0n);
    expect(await usdcOf(base, payment.deposit!.depositAddress)).toBe(0n);
    expect(await depositBalancesOf(database.handle, payment.id)).toEqual([
      [polygon.chainId, '0', arrived.toString(), arrived.toString()],
      [base.chainId, PAID.toString(), '0', PAID.toString()],
    ]);
    // Settled whole (merchant + treasury + what CCTP kept) and no longer held up.
    const row = await database.handle.db
      .selectFrom('payments')
      .select(['settled_base_units', 'payout_blocked_since'])
      .where('id', '=', payment.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ settled_base_units: PAID.toString(), payout_blocked_since: null });
  }

  const delayedEvents = async (paymentId: string) =>
    (
      await database.handle.db
        .selectFrom('events')
        .select('payload')
        .where('payment_id', '=', paymentId)
        .where('type', '=', 'payment.payout_delayed')
        .execute()
    ).map((e) => JSON.parse(e.payload) as { payout_delayed_reason: string | null });

  it('no minimum: a standard burn offers nothing and arrives whole, no fee stated', async () => {
    clock = new TestClock();
    const payment = await paidOnBase();
    await burnAndSettle(freshWorker(), sourceOptions('standard'));
    expect(await bridgeRow(payment.id)).toMatchObject({
      max_fee_base_units: '0',
      quoted_max_fee_base_units: '0',
      fee_executed_base_units: '0',
      minted_base_units: PAID.toString(),
    });
    await expectSettled(payment, PAID);
    expect(cctpFeeFields(await storedPayment(payment.id))).toEqual({});
  });

  it('a minimum of 1 bp: a standard burn offers exactly it, CCTP keeps it, and the status says it was above the quote', async () => {
    clock = new TestClock();
    await setMinFee(ONE_BP);
    const payment = await paidOnBase();
    const worker = freshWorker();
    const options = sourceOptions('standard');
    const sent = await burnOnce(worker.source, options);
    if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${JSON.stringify(sent)}`);
    await mined(base, sent.txHash as Hex);
    expect((await burnOnce(worker.source, options)).kind).toBe('burnt');
    // 1 bp of 10 USDC is 1 000 base units: offered exactly, where the quote said a standard transfer is free.
    expect(await bridgeRow(payment.id)).toMatchObject({
      max_fee_base_units: '1000',
      quoted_max_fee_base_units: '0',
    });
    expect(cctpFeeFields(await storedPayment(payment.id))).toEqual({
      cctp_fee: {
        taken: '0.00',
        pending_max: '0.001',
        borne_by: 'merchant_share',
        quoted_max: '0.00',
        above_quote: true,
      },
    });
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.standard });
    clock.advance(60_000);
    expect((await attestOnce(worker.source, options)).attested).toHaveLength(1);
    await flushMinted(worker, polygon, settleOptions);

    expect(await bridgeRow(payment.id)).toMatchObject({
      fee_executed_base_units: '1000',
      minted_base_units: (PAID - 1_000n).toString(),
    });
    await expectSettled(payment, PAID - 1_000n);
    expect(cctpFeeFields(await storedPayment(payment.id))).toEqual({
      cctp_fee: {
        taken: '0.001',
        pending_max: '0.00',
        borne_by: 'merchant_share',
        quoted_max: '0.00',
        above_quote: true,
      },
    });
  });

  it("above the operator's cap: no burn sent, the payout delayed naming the fee; the cap raised, burnt and paid", async () => {
    clock = new TestClock();
    await setMinFee(ONE_BP);
    const payment = await paidOnBase();
    const worker = freshWorker();
    const nonceBefore = await worker.source.relayer.nonce();
    // The operator allows nothing (0 bp): 1 bp of 10 USDC is above it.
    const held = await burnOnce(worker.source, sourceOptions('standard', 0));
    expect(held).toMatchObject({ kind: 'setback' });
    const reason =
      "CCTP's minimum fee for this burn is 0.001 USDC (1 bp of 10.00 USDC), above the cap of 0.00 USDC (0 bp): " +
      'not burnt until the minimum falls or the cap rises';
    expect(held).toMatchObject({ reason });
    // Nothing was sent: the relayer's nonce unmoved, the money still in the forwarder on Base, no burn on chain.
    expect(await worker.source.relayer.nonce()).toBe(nonceBefore);
    expect(await usdcOf(base, payment.deposit!.depositAddress)).toBe(PAID);
    expect(await worker.source.source.burnsBy(payment.deposit!.depositAddress, 0n)).toEqual([]);
    expect(await bridgeRow(payment.id)).toMatchObject({
      step: 'burn',
      burn_tx_hash: null,
      last_error: reason,
    });
    // Not tried again before its back-off.
    clock.advance(settlementRetryDelayMs(1) - 1);
    expect((await burnOnce(worker.source, sourceOptions('standard', 0))).kind).toBe('idle');

    // Past the usual delay the merchant is told, the fee named.
    clock.advance(DEFAULT_PAYOUT_POLICY.delayedAfterMs);
    await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
    expect(await delayedEvents(payment.id)).toEqual([
      expect.objectContaining({ payout_delayed_reason: `cross-chain transfer: ${reason}` }),
    ]);

    // The operator raises the cap to 10 bp: the next attempt burns, offering the minimum.
    await burnAndSettle(worker, sourceOptions('standard', 10));
    expect(await bridgeRow(payment.id)).toMatchObject({
      max_fee_base_units: '1000',
      fee_executed_base_units: '1000',
      minted_base_units: (PAID - 1_000n).toString(),
    });
    await expectSettled(payment, PAID - 1_000n);
  });

  it('above the cap, then Circle lowers its minimum: burnt at the new minimum and paid', async () => {
    clock = new TestClock();
    // 20 bp of 10 USDC is 0.02 USDC; the cap of 10 bp allows 0.01.
    await setMinFee(20n * ONE_BP);
    const payment = await paidOnBase();
    const worker = freshWorker();
    const options = sourceOptions('standard');
    const held = await burnOnce(worker.source, options);
    expect(held).toMatchObject({
      kind: 'setback',
      reason: expect.stringContaining(
        'minimum fee for this burn is 0.02 USDC (20 bp of 10.00 USDC), above the cap of 0.01 USDC (10 bp)',
      ),
    });
    expect(await usdcOf(base, payment.deposit!.depositAddress)).toBe(PAID);

    await setMinFee(ONE_BP);
    clock.advance(settlementRetryDelayMs(1));
    await burnAndSettle(worker, options);
    expect(await bridgeRow(payment.id)).toMatchObject({
      max_fee_base_units: '1000',
      fee_executed_base_units: '1000',
    });
    await expectSettled(payment, PAID - 1_000n);
  });

  it('at the boundary: a minimum one base unit above the cap is held, one exactly at it is burnt', async () => {
    clock = new TestClock();
    // The operator's cap of 1 bp allows 1 000 base units of 10 USDC; 1.001 bp asks 1 001.
    await setMinFee(ONE_BP + 1n);
    const payment = await paidOnBase();
    const worker = freshWorker();
    const options = sourceOptions('standard', 1);
    expect(await burnOnce(worker.source, options)).toMatchObject({
      kind: 'setback',
      reason: expect.stringContaining(
        'is 0.001001 USDC (1.001 bp of 10.00 USDC), above the cap of 0.001 USDC (1 bp)',
      ),
    });
    await setMinFee(ONE_BP);
    clock.advance(settlementRetryDelayMs(1));
    await burnAndSettle(worker, options);
    expect(await bridgeRow(payment.id)).toMatchObject({
      max_fee_base_units: '1000',
      fee_executed_base_units: '1000',
    });
    await expectSettled(payment, PAID - 1_000n);
  });

  it("a fast burn offers the higher of Circle's fast fee and the minimum, within the quote's cap", async () => {
    clock = new TestClock();
    // 2 bp minimum, above the 1 bp fast fee: 2 000 base units, still within the 10 bp the quote stated.
    await setMinFee(2n * ONE_BP);
    const payment = await paidOnBase();
    await burnAndSettle(freshWorker(), sourceOptions('fast'));
    expect(await bridgeRow(payment.id)).toMatchObject({
      speed: 'fast',
      max_fee_base_units: '2000',
      quoted_max_fee_base_units: '10000',
      fee_executed_base_units: '2000',
    });
    await expectSettled(payment, PAID - 2_000n);
    expect(cctpFeeFields(await storedPayment(payment.id))).toEqual({
      cctp_fee: {
        taken: '0.002',
        pending_max: '0.00',
        borne_by: 'merchant_share',
        quoted_max: '0.01',
        above_quote: false,
      },
    });
  });
});
