/**
 * Issue 30, item 6: two cases carried from the customer's transfer on a source chain ("Arbitrum", 42161) all the
 * way to the merchant and the treasury holding exactly their shares on the home chain ("Polygon", 137). The
 * transfer is seen by the real chain watcher (pollChainOnce, 3 confirmations on the source chain), then burnt,
 * attested (the local attestation service standing in for Circle's), minted and flushed by the real bridge and
 * settler steps, on real anvil nodes and a real database of each dialect.
 */
import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POLYGON_DOMAIN } from '../src/adapters/cctp/cctpMessage.ts';
import { chainReader } from '../src/adapters/chain/chainReader.ts';
import { predictDepositAddress } from '../src/adapters/chain/forwarder.ts';
import { ledgerRepository } from '../src/adapters/db/ledgerRepository.ts';
import { merchantRow } from '../src/adapters/db/merchantRepository.ts';
import { paymentRow, toPayment } from '../src/adapters/db/paymentRepository.ts';
import { attestOnce } from '../src/app/bridge/attestStep.ts';
import { burnOnce } from '../src/app/bridge/burnStep.ts';
import type { SourceBridgeOptions } from '../src/app/bridge/options.ts';
import { expirePayments } from '../src/app/chain/refreshPayments.ts';
import { pollChainOnce, type WatchChainOptions } from '../src/app/chain/watchChain.ts';
import type { SettleOptions } from '../src/app/settlement/options.ts';
import type { Payment } from '../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY } from '../src/domain/payout.ts';
import { testMerchant } from './fakes/merchantFixture.ts';
import { testPayment } from './fakes/paymentFixture.ts';
import {
  type BridgeWorker,
  bridgeWorker,
  customerPays,
  depositBalancesOf,
  mined,
  mintAndFlush,
  usdcOf,
} from './helpers/bridgeWorker.ts';
import { type CctpChain, type CctpChains, startCctpChains } from './helpers/cctpChains.ts';
import { TestClock } from './helpers/clock.ts';
import { createTestDatabase, dialects, type TestDatabase } from './helpers/database.ts';
import { capturingLogger } from './helpers/logCapture.ts';

const COMMISSION_BPS = 100;
const MAX_FEE_BPS = 10;
/** Circle's blocks before it signs a standard burn; the source watcher's own confirmations. */
const ATTESTATION_CONFIRMATIONS = { fast: 1, standard: 2 };
const SOURCE_CONFIRMATIONS = 3;
const HOME_CONFIRMATIONS = 2;
const TTL_MS = 60 * 60_000;
const AMOUNT = 10_000_000n;
const CUSTOMER = 3;

let net: CctpChains;
let polygon: CctpChain;
let arbitrum: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: POLYGON_DOMAIN },
      { name: 'arbitrum', chainId: 42161, domain: 3, maxBurnFeeBps: MAX_FEE_BPS },
    ],
    { confirmations: ATTESTATION_CONFIRMATIONS, fastFeeBps: 1 },
  );
  polygon = net.chain('polygon');
  arbitrum = net.chain('arbitrum');
}, 120_000);
afterAll(async () => {
  await net?.stop();
});

describe.each(dialects)(
  'a payment on a source chain settled to exact shares on Polygon, on %s',
  (dialect) => {
    let database: TestDatabase;
    let clock: TestClock;
    const { logger } = capturingLogger();
    let paymentNumber = 0;
    let home: WatchChainOptions;
    let source: WatchChainOptions;

    const factory = () => net.factories.polygon!.factory;
    const ledger = () => ledgerRepository(database.handle);

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      await database.handle.db
        .insertInto('merchants')
        .values(merchantRow(testMerchant({ commissionBps: COMMISSION_BPS })))
        .execute();
      const usdcOf = (chain: CctpChain) => [
        { address: chain.cctp.usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true },
      ];
      // Each watcher starts at its chain's head now: every payment of this database is created after.
      home = {
        chainId: polygon.chainId,
        tokens: usdcOf(polygon),
        maxBlockRange: 100,
        startBlock: await polygon.anvil.publicClient.getBlockNumber(),
        cctpMessageTransmitter: polygon.cctp.messageTransmitter,
      };
      source = {
        chainId: arbitrum.chainId,
        tokens: usdcOf(arbitrum),
        maxBlockRange: 100,
        startBlock: await arbitrum.anvil.publicClient.getBlockNumber(),
        homeChainId: polygon.chainId,
        homeFactory: factory(),
      };
    }, 60_000);
    afterAll(() => database?.drop());

    // Expiry and lateness are judged against block times: both chains and the test clock start each test at one
    // time, whatever the tests before moved.
    beforeEach(async () => {
      const latest = await Promise.all(
        [polygon, arbitrum].map(async (c) => (await c.anvil.publicClient.getBlock()).timestamp),
      );
      const now = BigInt(Math.max(...latest.map(Number)) + 1);
      for (const chain of [polygon, arbitrum]) {
        await chain.anvil.testClient.setNextBlockTimestamp({ timestamp: now });
        await chain.anvil.testClient.mine({ blocks: 1 });
      }
      clock = new TestClock(new Date(Number(now) * 1000));
    });

    /** A payment of 10 USDC whose deposit address is the V3 factory's, the same on both chains. */
    async function newPayment(): Promise<Payment> {
      paymentNumber += 1;
      // New recipients each time: the chains are shared by every dialect's run.
      const merchant = privateKeyToAccount(generatePrivateKey()).address;
      const treasury = privateKeyToAccount(generatePrivateKey()).address;
      const id = randomUUID();
      const fixture = testPayment(paymentNumber);
      const payment: Payment = {
        ...fixture,
        id,
        payoutAddress: merchant,
        webhookUrl: 'http://127.0.0.1:9/hooks',
        quote: { ...fixture.quote, commissionBps: COMMISSION_BPS },
        createdAt: clock.now(),
        expiresAt: new Date(clock.now().getTime() + TTL_MS),
        deposit: {
          chainId: polygon.chainId,
          tokenAddress: polygon.cctp.usdc,
          factoryAddress: factory(),
          treasuryAddress: treasury,
          depositAddress: predictDepositAddress({
            factory: factory(),
            implementation: net.factories.polygon!.implementation,
            params: { merchant, treasury, feeBps: COMMISSION_BPS, paymentId: id },
            version: 3,
          }),
        },
      };
      await database.handle.db.insertInto('payments').values(paymentRow(payment)).execute();
      return payment;
    }

    /** USDC minted to the customer (its own block), then sent by them to the deposit address: the transfer. */
    async function payOnArbitrum(payment: Payment, amount: bigint): Promise<Hex> {
      const receipt = await customerPays(arbitrum, CUSTOMER, payment.deposit!.depositAddress, amount);
      return receipt.transactionHash;
    }

    const watcherDeps = (chain: CctpChain, confirmations: number) => ({
      ledger: ledger(),
      chain: chainReader(chain.anvil.publicClient, { kind: 'confirmations', confirmations }),
      clock,
      logger,
    });
    const pollSource = () => pollChainOnce(watcherDeps(arbitrum, SOURCE_CONFIRMATIONS), source);
    const pollHome = () => pollChainOnce(watcherDeps(polygon, HOME_CONFIRMATIONS), home);

    const worker = () =>
      bridgeWorker({
        handle: database.handle,
        clock,
        home: polygon,
        source: arbitrum,
        attestationUrl: net.attestation.url,
      });

    const sourceOptions = (): SourceBridgeOptions => ({
      homeChainId: polygon.chainId,
      tokenAddress: arbitrum.cctp.usdc,
      speed: 'standard',
      maxFeeBps: MAX_FEE_BPS,
      fastConfirmations: 1,
      dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
      relayerLowBalanceWei: 10n ** 18n,
      attestationPollMs: 2_000,
      attestationExpectedMs: 60_000,
    });
    const settleOptions: SettleOptions = {
      chainId: 137,
      payoutPolicy: DEFAULT_PAYOUT_POLICY,
      relayerLowBalanceWei: 10n ** 18n,
    };

    /** Burnt (one burn sent, mined, recorded), attested, minted and flushed on Polygon. */
    async function bridgeAndFlush(bridgeWorker: BridgeWorker): Promise<void> {
      const sent = await burnOnce(bridgeWorker.source, sourceOptions());
      if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${sent.kind}`);
      await mined(arbitrum, sent.txHash as Hex);
      expect((await burnOnce(bridgeWorker.source, sourceOptions())).kind).toBe('burnt');
      // Nothing left to burn: the one burn carried all of it.
      expect((await burnOnce(bridgeWorker.source, sourceOptions())).kind).toBe('idle');
      await arbitrum.anvil.testClient.mine({ blocks: ATTESTATION_CONFIRMATIONS.standard });
      clock.advance(60_000);
      expect((await attestOnce(bridgeWorker.source, sourceOptions())).attested).toHaveLength(1);
      await mintAndFlush(bridgeWorker, polygon, settleOptions);
    }

    const bridgeRows = (paymentId: string) =>
      database.handle.db
        .selectFrom('bridge_transfers')
        .selectAll()
        .where('payment_id', '=', paymentId)
        .execute();

    const stored = async (paymentId: string) =>
      toPayment(
        await database.handle.db
          .selectFrom('payments')
          .selectAll()
          .where('id', '=', paymentId)
          .executeTakeFirstOrThrow(),
      );
    const events = async (paymentId: string) =>
      (await ledger().listEvents(paymentId)).map((e) => ({
        type: e.type,
        body: JSON.parse(e.payload) as Record<string, unknown>,
      }));

    /**
     * Merchant and treasury hold exactly their shares of the 10 USDC on Polygon, nothing is left at the address on
     * either chain, and the home watcher, seeing our own mint, still counts 10 USDC received (not 20).
     */
    async function expectExactShares(payment: Payment): Promise<void> {
      const treasuryShare = (AMOUNT * BigInt(COMMISSION_BPS)) / 10_000n;
      expect(await usdcOf(polygon, payment.payoutAddress)).toBe(AMOUNT - treasuryShare);
      expect(await usdcOf(polygon, payment.deposit!.treasuryAddress)).toBe(treasuryShare);
      expect(await usdcOf(polygon, payment.deposit!.depositAddress)).toBe(0n);
      expect(await usdcOf(arbitrum, payment.deposit!.depositAddress)).toBe(0n);
      // Nothing paid out on the source chain: its money went through the bridge alone.
      expect(await usdcOf(arbitrum, payment.payoutAddress)).toBe(0n);
      await polygon.anvil.testClient.mine({ blocks: HOME_CONFIRMATIONS });
      await pollHome();
      await pollSource();
      expect((await stored(payment.id)).amountReceivedBaseUnits).toBe(AMOUNT);
      expect(await depositBalancesOf(database.handle, payment.id)).toEqual([
        [polygon.chainId, '0', AMOUNT.toString(), AMOUNT.toString()],
        [arbitrum.chainId, AMOUNT.toString(), '0', AMOUNT.toString()],
      ]);
    }

    it('paid on Arbitrum after its link expired: late and paid, then burnt, attested, minted and flushed', async () => {
      const payment = await newPayment();
      clock.advance(TTL_MS + 60_000);
      await arbitrum.anvil.testClient.increaseTime({ seconds: Math.ceil((TTL_MS + 120_000) / 1000) });
      await expirePayments({ ledger: ledger(), clock });
      expect((await stored(payment.id)).status).toBe('expired');
      // Expired and unpaid: nothing to burn.
      expect((await burnOnce(worker().source, sourceOptions())).kind).toBe('idle');

      const late = await payOnArbitrum(payment, AMOUNT);
      await arbitrum.anvil.testClient.mine({ blocks: SOURCE_CONFIRMATIONS });
      await pollSource();
      expect(await stored(payment.id)).toMatchObject({
        status: 'paid',
        late: true,
        txid: late,
        txidChainId: arbitrum.chainId,
      });
      const told = await events(payment.id);
      expect(told.map((e) => e.type)).toEqual(['payment.expired', 'payment.processing', 'payment.paid']);
      // The webhook's txid is the home chain's only (decision 0039): Arbitrum's transfer is named with its chain.
      expect(told[2]!.body).toMatchObject({
        status: 'paid',
        late: true,
        amount_received: '10.00',
        txid: null,
        transfers: [{ chain_id: arbitrum.chainId, txid: late, final: true }],
      });

      await bridgeAndFlush(worker());
      await expectExactShares(payment);
      expect(await bridgeRows(payment.id)).toMatchObject([
        { step: 'done', source_chain_id: arbitrum.chainId, amount_base_units: AMOUNT.toString() },
      ]);
      // The late payment stays paid and late; the settlement told the merchant nothing that unsays it.
      expect(await stored(payment.id)).toMatchObject({ status: 'paid', late: true });
      const after = await events(payment.id);
      expect(after.map((e) => e.type)).toEqual([
        'payment.expired',
        'payment.processing',
        'payment.paid',
        'payment.payout_sent',
      ]);
      expect(after[3]!.body).toMatchObject({ status: 'paid', late: true, amount_received: '10.00' });
    });

    it('a transfer reorged out on Arbitrum before it is final is never burnt; paid again, exactly one burn of it', async () => {
      const payment = await newPayment();
      const address = payment.deposit!.depositAddress as Address;
      await payOnArbitrum(payment, AMOUNT);
      // One block short of final: seen, processing.
      await arbitrum.anvil.testClient.mine({ blocks: SOURCE_CONFIRMATIONS - 2 });
      await pollSource();
      expect(await stored(payment.id)).toMatchObject({ status: 'processing', amountReceivedBaseUnits: 0n });
      const bridgeWorker = worker();
      expect((await burnOnce(bridgeWorker.source, sourceOptions())).kind).toBe('idle');

      // The transfer's block and the one after are replaced by empty ones: the transfer is gone.
      await arbitrum.anvil.testClient.request({
        method: 'anvil_reorg',
        params: [SOURCE_CONFIRMATIONS - 1, []],
      } as never);
      expect(await usdcOf(arbitrum, address)).toBe(0n);
      expect((await pollSource()).reorgDepth).toBeGreaterThan(0);
      expect(await stored(payment.id)).toMatchObject({ status: 'pending', amountReceivedBaseUnits: 0n });
      // Kept as orphaned, never final: it counts for nothing.
      expect((await ledger().listTransfers(payment.id)).map((t) => [t.chainId, t.orphaned, t.final])).toEqual(
        [[arbitrum.chainId, true, false]],
      );
      // Enough blocks for the old transfer to have been final: still nothing burnt, the forwarder never deployed.
      await arbitrum.anvil.testClient.mine({ blocks: SOURCE_CONFIRMATIONS });
      await pollSource();
      expect((await burnOnce(bridgeWorker.source, sourceOptions())).kind).toBe('idle');
      expect(await bridgeRows(payment.id)).toEqual([]);
      expect(await arbitrum.anvil.publicClient.getCode({ address })).toBeUndefined();

      // The customer pays again; final, then bridged once.
      const again = await payOnArbitrum(payment, AMOUNT);
      await arbitrum.anvil.testClient.mine({ blocks: SOURCE_CONFIRMATIONS });
      await pollSource();
      expect(await stored(payment.id)).toMatchObject({ status: 'paid', late: false, txid: again });
      await bridgeAndFlush(bridgeWorker);
      await expectExactShares(payment);
      expect(await bridgeRows(payment.id)).toMatchObject([
        { step: 'done', source_chain_id: arbitrum.chainId, amount_base_units: AMOUNT.toString() },
      ]);
      const told = (await events(payment.id)).map((e) => e.type);
      expect(told).toEqual([
        'payment.processing',
        'payment.pending',
        'payment.processing',
        'payment.paid',
        'payment.payout_sent',
      ]);
    });
  },
);
