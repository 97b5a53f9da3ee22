import type { Address, Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FINALITY_FAST, FINALITY_STANDARD } from '../../src/adapters/cctp/cctpMessage.ts';
import { forwarderFactoryV3Abi, testMessageTransmitterV2Abi } from '../../src/adapters/chain/contractAbis.ts';
import { toForwarderStruct } from '../../src/adapters/chain/forwarder.ts';
import { ledgerRepository } from '../../src/adapters/db/ledgerRepository.ts';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { monitoringRepository } from '../../src/adapters/db/monitoringRepository.ts';
import { toPayment } from '../../src/adapters/db/paymentRepository.ts';
import { settlementRepository } from '../../src/adapters/db/settlementRepository.ts';
import { createMetrics } from '../../src/adapters/metrics/metrics.ts';
import { attestOnce } from '../../src/app/bridge/attestStep.ts';
import { burnOnce } from '../../src/app/bridge/burnStep.ts';
import type { SourceBridgeOptions } from '../../src/app/bridge/options.ts';
import type { TransferSpeed } from '../../src/app/bridge/ports.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import { settleOnce } from '../../src/app/settlement/settleOnce.ts';
import { settleWithMintsOnce } from '../../src/app/settlement/settleWithMints.ts';
import { type Payment, payoutStateOf } from '../../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY } from '../../src/domain/payout.ts';
import { cctpFeeFields, payoutBaseUnits } from '../../src/domain/webhookEvent.ts';
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
import { type CctpChain, type CctpChains, RELAYER, startCctpChains } from '../helpers/cctpChains.ts';
import { runCli } from '../helpers/cli.ts';
import { TestClock } from '../helpers/clock.ts';
import { HOME_SETTLE_OPTIONS, insertCrossChainPayment } from '../helpers/crossChainScene.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';

const FAST_FEE_BPS = 1;
const MAX_FEE_BPS = 10;
const COMMISSION_BPS = 100;
const CONFIRMATIONS = { fast: 1, standard: 3 };
const CUSTOMER = 3;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: MAX_FEE_BPS },
    ],
    { confirmations: CONFIRMATIONS, fastFeeBps: FAST_FEE_BPS },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
});
afterAll(async () => {
  await net?.stop();
});

describe.each(dialects)('settling a payment paid on another chain, on %s', (dialect) => {
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
  afterEach(() => net.attestation.setFault('none'));

  const factory = () => net.factories.polygon!.factory;

  /** A payment of 10 USDC whose deposit address is the V3 factory's, the same on both chains. */
  const newPayment = (): Promise<Payment> =>
    insertCrossChainPayment({
      handle: database.handle,
      net,
      home: polygon,
      number: ++paymentNumber,
      now: clock.now(),
      commissionBps: COMMISSION_BPS,
    });

  /** The customer pays on Base, and the watcher records the transfer there as final. */
  const payOnBase = (payment: Payment, amount: bigint) => payOn(base, payment, amount);

  /** The customer pays on `chain`, and the watcher records the transfer there as final. */
  async function payOn(chain: CctpChain, payment: Payment, amount: bigint): Promise<void> {
    const receipt = await customerPays(chain, CUSTOMER, payment.deposit!.depositAddress, amount);
    const hash = receipt.transactionHash;
    const block = await chain.anvil.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    const ledger = ledgerRepository(database.handle);
    await ledger.transaction(async (tx) => {
      await tx.insertTransfers([
        {
          id: `${chain.chainId}:${receipt.blockHash}:0`,
          chainId: chain.chainId,
          paymentId: payment.id,
          txHash: hash,
          logIndex: 0,
          blockNumber: receipt.blockNumber,
          blockHash: receipt.blockHash,
          blockTimestamp: new Date(Number(block.timestamp) * 1000),
          tokenAddress: chain.cctp.usdc.toLowerCase(),
          tokenSymbol: 'USDC',
          fromAddress: receipt.from.toLowerCase(),
          toAddress: payment.deposit!.depositAddress.toLowerCase(),
          amountBaseUnits: amount,
          final: true,
          orphaned: false,
        },
      ]);
      await refreshPayments(tx, [payment.id], clock.now());
    });
  }

  /** A bridge job for Base and the home settler, as a freshly started worker builds them. */
  const freshWorker = () =>
    bridgeWorker({
      handle: database.handle,
      clock,
      home: polygon,
      source: base,
      attestationUrl: net.attestation.url,
    });

  const sourceOptions = (speed: TransferSpeed): SourceBridgeOptions => ({
    homeChainId: polygon.chainId,
    tokenAddress: base.cctp.usdc,
    speed,
    maxFeeBps: MAX_FEE_BPS,
    fastConfirmations: 1,
    dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
    relayerLowBalanceWei: 10n ** 18n,
    attestationPollMs: 2_000,
    attestationExpectedMs: 60_000,
  });
  const settleOptions = HOME_SETTLE_OPTIONS;

  /** Our burn sent, mined, then recorded as final. */
  async function burn(worker: BridgeWorker, speed: TransferSpeed): Promise<void> {
    const sent = await burnOnce(worker.source, sourceOptions(speed));
    if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${sent.kind}`);
    await mined(base, sent.txHash as Hex);
    expect((await burnOnce(worker.source, sourceOptions(speed))).kind).toBe('burnt');
  }

  /** Attestation passes until it is attested, Base mining the blocks Circle waits for. */
  async function attest(worker: BridgeWorker, speed: TransferSpeed): Promise<void> {
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS[speed] });
    clock.advance(60_000);
    const outcome = await attestOnce(worker.source, sourceOptions(speed));
    expect(outcome.attested).toHaveLength(1);
  }

  const mintAndFlush = (worker: BridgeWorker) => flushMinted(worker, polygon, settleOptions);

  async function bridgeRow(paymentId: string) {
    return database.handle.db
      .selectFrom('bridge_transfers')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .execute();
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
      [base.chainId, '10000000', '0', '10000000'],
    ]);
  }

  /** What the payment's status and webhooks say of its payout and of the CCTP fee, from its stored row. */
  async function feeStated(payment: Payment) {
    const row = await database.handle.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', payment.id)
      .executeTakeFirstOrThrow();
    const stored = toPayment(row);
    const state = {
      status: stored.status,
      amountReceivedBaseUnits: stored.amountReceivedBaseUnits,
      paidAt: null,
      late: false,
    };
    const unsettled = await settlementRepository(database.handle).listUnsettled({
      dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
      failingOnly: false,
      limit: 1_000,
    });
    return {
      settled: row.settled_base_units,
      payoutAmount: payoutBaseUnits(stored, state),
      payoutStatus: payoutStateOf(stored, stored, DEFAULT_PAYOUT_POLICY, clock.now()).status,
      listedUnsettled: unsettled.some((u) => u.payment.id === payment.id),
      ...cctpFeeFields(stored),
    };
  }

  it('a standard transfer: burnt on Base, attested, minted and flushed on Polygon, free', async () => {
    clock = new TestClock();
    const payment = await newPayment();
    await payOnBase(payment, 10_000_000n);
    const worker = freshWorker();

    await burn(worker, 'standard');
    expect(await usdcOf(base, payment.deposit!.depositAddress)).toBe(0n);
    // Not yet final for Circle: asked again after a wait, not a stall.
    expect((await attestOnce(worker.source, sourceOptions('standard'))).waiting).toHaveLength(1);
    await attest(worker, 'standard');
    await mintAndFlush(worker);

    await expectSettled(payment, 10_000_000n);
    const [row] = await bridgeRow(payment.id);
    expect(row).toMatchObject({
      step: 'done',
      speed: 'standard',
      max_fee_base_units: '0',
      min_finality_threshold: FINALITY_STANDARD,
      fee_executed_base_units: '0',
      minted_base_units: '10000000',
    });
    // Free: no fee stated, the whole 10 USDC paid out less the commission.
    expect(await feeStated(payment)).toEqual({
      settled: '10000000',
      payoutAmount: 10_000_000n - (10_000_000n * BigInt(COMMISSION_BPS)) / 10_000n,
      payoutStatus: 'sent',
      listedUnsettled: false,
    });
    // Base's relayer balance is recorded like the home relayer's (the low-balance alert covers it).
    const readings = await settlementRepository(database.handle).relayerBalances();
    expect(readings.map((r) => r.chainId)).toContain(base.chainId);
  });

  it("a fast transfer's fee is bound before the burn and taken exactly, out of what reaches Polygon", async () => {
    clock = new TestClock();
    const payment = await newPayment();
    await payOnBase(payment, 10_000_000n);
    const worker = freshWorker();
    await burn(worker, 'fast');
    await attest(worker, 'fast');
    await mintAndFlush(worker);

    // Circle's minimum for 1 bp of 10 USDC is 1 000 base units; the operator's cap (10 bp) is 10 000.
    const fee = 1_000n;
    await expectSettled(payment, 10_000_000n - fee);
    const [row] = await bridgeRow(payment.id);
    expect(row).toMatchObject({
      speed: 'fast',
      max_fee_base_units: fee.toString(),
      min_finality_threshold: FINALITY_FAST,
      fee_executed_base_units: fee.toString(),
      minted_base_units: (10_000_000n - fee).toString(),
    });
    // The fee is stated exactly and borne by the merchant's share; the payout is complete, nothing left owed.
    const arrived = 10_000_000n - fee;
    expect(await feeStated(payment)).toEqual({
      settled: '10000000',
      payoutAmount: arrived - (arrived * BigInt(COMMISSION_BPS)) / 10_000n,
      payoutStatus: 'sent',
      listedUnsettled: false,
      // The quote allowed 10 bp of what was burnt (0.01): the fee stayed within it (decision 0035).
      cctp_fee: {
        taken: '0.001',
        pending_max: '0.00',
        borne_by: 'merchant_share',
        quoted_max: '0.01',
        above_quote: false,
      },
    });
    expect(await usdcOf(polygon, polygon.feeRecipient)).toBeGreaterThanOrEqual(fee);
  });

  it('a mint due goes before the next settlement, even when the settler sends one every pass', async () => {
    clock = new TestClock();
    const crossChain = await newPayment();
    await payOnBase(crossChain, 10_000_000n);
    const worker = freshWorker();
    await burn(worker, 'standard');
    await attest(worker, 'standard');
    // Payments paid on Polygon itself keep the settler busy: one flush in flight, the next one due.
    const [first, second] = [await newPayment(), await newPayment()];
    await payOn(polygon, first, 10_000_000n);
    const sent = (await settleOnce(worker.settle, settleOptions)).send;
    if (sent?.kind !== 'sent') throw new Error(`expected a flush sent, got ${sent?.kind}`);
    await mined(polygon, sent.txHash as Hex);
    await payOn(polygon, second, 10_000_000n);

    // The flush in flight is closed, then the mint takes its turn; the next flush waits for it to be mined.
    const pass = await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
    expect(pass.settle.inFlight?.kind).toBe('confirmed');
    expect(pass.mint.kind).toBe('in-flight');
    expect(pass.settle.send).toBeNull();
    await mined(polygon, (pass.mint as { txHash: Hex }).txHash);
    const next = await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
    expect(next.mint).toMatchObject({ kind: 'minted', mintedBaseUnits: 10_000_000n });
    expect(next.settle.send?.kind).toBe('sent');
    await mintAndFlush(worker);
    await expectSettled(crossChain, 10_000_000n);
    for (const home of [first, second]) {
      expect(await usdcOf(polygon, home.payoutAddress)).toBe(10_000_000n - 100_000n);
      expect(await usdcOf(polygon, home.deposit!.depositAddress)).toBe(0n);
    }
  });

  it('a mint due goes out behind a settlement still unmined, at the next nonce, and both are mined in one block', async () => {
    clock = new TestClock();
    const crossChain = await newPayment();
    await payOnBase(crossChain, 10_000_000n);
    const worker = freshWorker();
    await burn(worker, 'standard');
    await attest(worker, 'standard');
    const home = await newPayment();
    await payOn(polygon, home, 10_000_000n);
    await polygon.anvil.testClient.setAutomine(false);
    try {
      const sent = (await settleOnce(worker.settle, settleOptions)).send;
      if (sent?.kind !== 'sent') throw new Error(`expected a flush sent, got ${sent?.kind}`);
      const pass = await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
      expect(pass.settle.inFlight?.kind).toMatch(/^(awaiting-receipt|broadcast)$/);
      expect(pass.mint.kind).toBe('in-flight');
      expect(pass.settle.send).toBeNull();
      const mintTx = await polygon.anvil.publicClient.getTransaction({
        hash: (pass.mint as { txHash: Hex }).txHash,
      });
      expect(BigInt(mintTx.nonce)).toBe(sent.nonce + 1n);
      await polygon.anvil.testClient.mine({ blocks: 1 });
    } finally {
      await polygon.anvil.testClient.setAutomine(true);
    }
    const next = await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
    expect(next.settle.inFlight?.kind).toBe('confirmed');
    expect(next.mint).toMatchObject({ kind: 'minted', mintedBaseUnits: 10_000_000n });
    await mintAndFlush(worker);
    await expectSettled(crossChain, 10_000_000n);
    expect(await usdcOf(polygon, home.payoutAddress)).toBe(10_000_000n - 100_000n);
  });

  it('the attestation API down for ten minutes: retried, reported as a delayed payout, then completed', async () => {
    clock = new TestClock();
    const payment = await newPayment();
    await payOnBase(payment, 10_000_000n);
    const worker = freshWorker();
    await burn(worker, 'standard');
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.standard });
    net.attestation.setFault('unavailable');

    const delayed = async () =>
      database.handle.db
        .selectFrom('events')
        .select('type')
        .where('payment_id', '=', payment.id)
        .where('type', '=', 'payment.payout_delayed')
        .execute();
    expect((await attestOnce(worker.source, sourceOptions('standard'))).waiting).toEqual([
      (await bridgeRow(payment.id))[0]!.id,
    ]);
    // Just under the threshold: held up, not yet reported to the merchant.
    clock.advance(DEFAULT_PAYOUT_POLICY.delayedAfterMs - 1);
    await attestOnce(worker.source, sourceOptions('standard'));
    await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
    expect(await delayed()).toEqual([]);
    clock.advance(1);
    await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
    expect(await delayed()).toHaveLength(1);
    const [stalled] = await bridgeRow(payment.id);
    expect(stalled?.step).toBe('attest');
    expect(stalled?.last_error).toMatch(/attestation API unavailable/);
    // /metrics: the step waiting and how long (the burn was opened at the start of the test's clock).
    const metrics = createMetrics({ defaultMetrics: false });
    const steps = await monitoringRepository(database.handle.db).bridgeSteps();
    metrics.record({
      databaseUp: true,
      chains: [],
      bridge: steps.map((b) => ({
        step: b.step,
        waiting: b.waiting,
        oldestSeconds: (clock.now().getTime() - b.oldestCreatedAt.getTime()) / 1000,
      })),
    });
    // The operator's console: the step it waits in, and why.
    const cli = await runCli(['settlements', 'cross-chain', '--json'], {
      PAYLINK_DATABASE_URL: database.url,
      PAYLINK_NETWORK: 'polygon',
    });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).transfers).toEqual([
      expect.objectContaining({
        payment_id: payment.id,
        source_chain_id: base.chainId,
        step: 'attest',
        amount: '10.00',
        speed: 'standard',
        // The first failure: ten minutes before now.
        stalled_since: new Date(clock.now().getTime() - DEFAULT_PAYOUT_POLICY.delayedAfterMs).toISOString(),
        last_error: expect.stringMatching(/attestation API unavailable/),
      }),
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('paylink_bridge_transfers_waiting{step="attest"} 1');
    expect(text).toContain('paylink_bridge_transfers_waiting{step="mint"} 0');
    expect(text).toContain(
      `paylink_bridge_oldest_waiting_age_seconds{step="attest"} ${DEFAULT_PAYOUT_POLICY.delayedAfterMs / 1000}`,
    );

    net.attestation.setFault('none');
    clock.advance(60 * 60_000);
    expect((await attestOnce(worker.source, sourceOptions('standard'))).attested).toHaveLength(1);
    await mintAndFlush(worker);
    await expectSettled(payment, 10_000_000n);
    const status = await database.handle.db
      .selectFrom('payments')
      .select(['payout_blocked_since'])
      .where('id', '=', payment.id)
      .executeTakeFirstOrThrow();
    expect(status.payout_blocked_since).toBeNull();
  });

  it('a crash between burn and mint: a new worker finds the mint done on chain and counts it once', async () => {
    clock = new TestClock();
    const payment = await newPayment();
    await payOnBase(payment, 10_000_000n);
    const first = freshWorker();
    await burn(first, 'standard');
    await attest(first, 'standard');
    // The mint went out (here by the relayer's own hand, as a worker that died before recording it).
    const [attested] = await bridgeRow(payment.id);
    const hash = await polygon.anvil.wallet(RELAYER).writeContract({
      address: polygon.cctp.messageTransmitter,
      abi: testMessageTransmitterV2Abi,
      functionName: 'receiveMessage',
      args: [attested!.attested_message as Hex, attested!.attestation as Hex],
    });
    await mined(polygon, hash);

    const second = freshWorker();
    const pass = await settleWithMintsOnce(second.settle, second.home, settleOptions);
    expect(pass.mint).toMatchObject({ kind: 'minted', mintedBaseUnits: 10_000_000n });
    await mintAndFlush(second);
    await expectSettled(payment, 10_000_000n);
    const [row] = await bridgeRow(payment.id);
    expect(row).toMatchObject({ step: 'done', mint_tx_hash: null, minted_base_units: '10000000' });
  });

  it('a worker that dies with its mint broadcast: the next one follows that very transaction', async () => {
    clock = new TestClock();
    const payment = await newPayment();
    await payOnBase(payment, 10_000_000n);
    const first = freshWorker();
    await burn(first, 'standard');
    await attest(first, 'standard');
    const sent = await settleWithMintsOnce(first.settle, first.home, settleOptions);
    expect(sent.mint.kind).toBe('in-flight');
    // Mined while no worker was there to see it.
    await mined(polygon, (sent.mint as { txHash: Hex }).txHash);

    const second = freshWorker();
    const pass = await settleWithMintsOnce(second.settle, second.home, settleOptions);
    expect(pass.mint).toMatchObject({ kind: 'minted', mintedBaseUnits: 10_000_000n });
    await mintAndFlush(second);
    await expectSettled(payment, 10_000_000n);
    const [row] = await bridgeRow(payment.id);
    expect(row?.mint_tx_hash).toBe((sent.mint as { txHash: string }).txHash.toLowerCase());
  });

  it('a burn broadcast but never recorded (crash after broadcast) is found on chain, not burnt again', async () => {
    clock = new TestClock();
    const payment = await newPayment();
    await payOnBase(payment, 10_000_000n);
    const burnHash = await base.anvil.wallet(RELAYER).writeContract({
      address: factory(),
      abi: forwarderFactoryV3Abi,
      functionName: 'deployAndBurn',
      args: [
        toForwarderStruct({
          merchant: payment.payoutAddress as Address,
          treasury: payment.deposit!.treasuryAddress as Address,
          feeBps: COMMISSION_BPS,
          paymentId: payment.id,
        }),
        10_000_000n,
        0n,
        FINALITY_STANDARD,
      ],
    });
    await mined(base, burnHash);

    const worker = freshWorker();
    expect(await burnOnce(worker.source, sourceOptions('standard'))).toMatchObject({
      kind: 'found',
      txHash: burnHash,
    });
    expect(await burnOnce(worker.source, sourceOptions('standard'))).toMatchObject({ kind: 'burnt' });
    expect((await burnOnce(worker.source, sourceOptions('standard'))).kind).toBe('idle');
    await attest(worker, 'standard');
    await mintAndFlush(worker);
    await expectSettled(payment, 10_000_000n);
  });
});
