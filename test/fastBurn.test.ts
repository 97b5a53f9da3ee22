/**
 * Issue 36, item 3 (decision 0037): fast that is fast. On a source chain whose speed is fast ("Base", 8453, its
 * finality 16 blocks behind), a customer's transfer is burnt once FAST_CONFIRMATIONS blocks deep, the fast
 * attestation asked for once the burn is mined, and the payment is paid once the mint is final on Polygon (137),
 * never before. Reorgs on Base (`anvil_reorg`) before the burn and after the attestation: nothing burnt or
 * credited twice, and merchant and treasury end with exactly their shares on Polygon. Real watcher, bridge and
 * settler steps, real anvil nodes, a real database of each dialect.
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
/** Circle signs a fast burn one block deep; Base's finality, as the watcher reads it, trails by 16. */
const ATTESTATION_CONFIRMATIONS = { fast: 1, standard: 16 };
const SOURCE_FINALITY = 16;
const FAST_CONFIRMATIONS = 2;
const TTL_MS = 60 * 60_000;
const AMOUNT = 10_000_000n;
/** Circle's fast fee in the local service: 1 bp of 10 USDC. */
const FEE = 1_000n;
const CUSTOMER = 3;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: POLYGON_DOMAIN },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: MAX_FEE_BPS },
    ],
    { confirmations: ATTESTATION_CONFIRMATIONS, fastFeeBps: 1 },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
}, 120_000);
afterAll(async () => {
  await net?.stop();
});

const reorg = (chain: CctpChain, depth: number) =>
  chain.anvil.testClient.request({ method: 'anvil_reorg', params: [depth, []] } as never);

describe.each(dialects)(
  'a fast transfer from Base, burnt before final and paid once minted, on %s',
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
      const tokens = (chain: CctpChain) => [
        { address: chain.cctp.usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true },
      ];
      home = {
        chainId: polygon.chainId,
        tokens: tokens(polygon),
        maxBlockRange: 100,
        startBlock: await polygon.anvil.publicClient.getBlockNumber(),
        cctpMessageTransmitter: polygon.cctp.messageTransmitter,
      };
      source = {
        chainId: base.chainId,
        tokens: tokens(base),
        maxBlockRange: 100,
        startBlock: await base.anvil.publicClient.getBlockNumber(),
        homeChainId: polygon.chainId,
        homeFactory: factory(),
      };
    }, 60_000);
    afterAll(() => database?.drop());

    beforeEach(async () => {
      const latest = await Promise.all(
        [polygon, base].map(async (c) => (await c.anvil.publicClient.getBlock()).timestamp),
      );
      const now = BigInt(Math.max(...latest.map(Number)) + 1);
      for (const chain of [polygon, base]) {
        await chain.anvil.testClient.setNextBlockTimestamp({ timestamp: now });
        await chain.anvil.testClient.mine({ blocks: 1 });
      }
      clock = new TestClock(new Date(Number(now) * 1000));
    });

    async function newPayment(): Promise<Payment> {
      paymentNumber += 1;
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

    const watcherDeps = (chain: CctpChain, confirmations: number) => ({
      ledger: ledger(),
      chain: chainReader(chain.anvil.publicClient, { kind: 'confirmations', confirmations }),
      clock,
      logger,
    });
    const pollSource = () => pollChainOnce(watcherDeps(base, SOURCE_FINALITY), source);
    const pollHome = () => pollChainOnce(watcherDeps(polygon, 0), home);
    const worker = () =>
      bridgeWorker({
        handle: database.handle,
        clock,
        home: polygon,
        source: base,
        attestationUrl: net.attestation.url,
      });
    const fast: SourceBridgeOptions = {
      homeChainId: 137,
      tokenAddress: '0x0000000000000000000000000000000000000000',
      speed: 'fast',
      maxFeeBps: MAX_FEE_BPS,
      fastConfirmations: FAST_CONFIRMATIONS,
      dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
      relayerLowBalanceWei: 10n ** 18n,
      attestationPollMs: 2_000,
      attestationExpectedMs: 60_000,
    };
    const options = (): SourceBridgeOptions => ({ ...fast, tokenAddress: base.cctp.usdc });
    const settleOptions: SettleOptions = {
      chainId: 137,
      payoutPolicy: DEFAULT_PAYOUT_POLICY,
      relayerLowBalanceWei: 10n ** 18n,
    };

    const stored = async (paymentId: string) =>
      toPayment(
        await database.handle.db
          .selectFrom('payments')
          .selectAll()
          .where('id', '=', paymentId)
          .executeTakeFirstOrThrow(),
      );
    const eventTypes = async (paymentId: string) => (await ledger().listEvents(paymentId)).map((e) => e.type);
    const bridgeRows = (paymentId: string) =>
      database.handle.db
        .selectFrom('bridge_transfers')
        .selectAll()
        .where('payment_id', '=', paymentId)
        .execute();

    /** The customer's transfer on Base, its block's time, seen by the watcher. */
    async function pay(payment: Payment) {
      const receipt = await customerPays(base, CUSTOMER, payment.deposit!.depositAddress, AMOUNT);
      const block = await base.anvil.publicClient.getBlock({ blockNumber: receipt.blockNumber });
      await pollSource();
      return { txHash: receipt.transactionHash, at: new Date(Number(block.timestamp) * 1000) };
    }

    /** Our burn sent and mined, then recorded at once (a fast burn does not wait for its finality). */
    async function burn(w: BridgeWorker): Promise<Hex> {
      const sent = await burnOnce(w.source, options());
      if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${sent.kind}`);
      await mined(base, sent.txHash as Hex);
      expect(await burnOnce(w.source, options())).toMatchObject({ kind: 'burnt', txHash: sent.txHash });
      return sent.txHash as Hex;
    }

    /** The fast attestation: Circle signs one block on top of the burn. */
    async function attest(w: BridgeWorker): Promise<void> {
      expect((await attestOnce(w.source, options())).waiting).toHaveLength(1);
      await base.anvil.testClient.mine({ blocks: ATTESTATION_CONFIRMATIONS.fast });
      clock.advance(60_000);
      expect((await attestOnce(w.source, options())).attested).toHaveLength(1);
    }

    /** Merchant and treasury hold exactly their shares of what reached Polygon; nothing left at Polygon's address. */
    async function expectExactShares(payment: Payment): Promise<void> {
      const arrived = AMOUNT - FEE;
      const treasuryShare = (arrived * BigInt(COMMISSION_BPS)) / 10_000n;
      expect(await usdcOf(polygon, payment.payoutAddress)).toBe(arrived - treasuryShare);
      expect(await usdcOf(polygon, payment.deposit!.treasuryAddress)).toBe(treasuryShare);
      expect(await usdcOf(polygon, payment.deposit!.depositAddress)).toBe(0n);
      expect(await usdcOf(base, payment.payoutAddress)).toBe(0n);
      // The home watcher sees our own mint: still 10 USDC received, not 20.
      await pollHome();
      expect((await stored(payment.id)).amountReceivedBaseUnits).toBe(AMOUNT);
    }

    it('one block short of the fast depth is not burnt, at it it is; processing until the mint is final, then paid', async () => {
      const payment = await newPayment();
      const paid = await pay(payment);
      await base.anvil.testClient.mine({ blocks: FAST_CONFIRMATIONS - 1 });
      await pollSource();
      const w = worker();
      expect((await burnOnce(w.source, options())).kind).toBe('idle');
      expect(await bridgeRows(payment.id)).toEqual([]);

      await base.anvil.testClient.mine({ blocks: 1 });
      const burnt = await burn(w);
      expect(await usdcOf(base, payment.deposit!.depositAddress)).toBe(0n);
      // Burnt, not yet minted: the money could still vanish for the merchant. Processing, no paid_at.
      expect(await stored(payment.id)).toMatchObject({
        status: 'processing',
        paidAt: null,
        amountReceivedBaseUnits: 0n,
      });
      await attest(w);
      expect(await stored(payment.id)).toMatchObject({ status: 'processing', paidAt: null });

      await mintAndFlush(w, polygon, settleOptions);
      // Paid once the mint is final, 16 blocks before the transfer is final on Base; paid_at is the customer's block.
      expect(await stored(payment.id)).toMatchObject({
        status: 'paid',
        late: false,
        paidAt: paid.at,
        txid: paid.txHash,
        amountReceivedBaseUnits: AMOUNT,
      });
      expect((await pollSource()).finalized).toBeLessThan(
        (await base.anvil.publicClient.getBlockNumber()) - 1n,
      );
      await expectExactShares(payment);
      expect(await eventTypes(payment.id)).toEqual([
        'payment.processing',
        'payment.paid',
        'payment.payout_sent',
      ]);

      // Final on Base at last: nothing changes, nothing is burnt again, nothing told twice.
      await base.anvil.testClient.mine({ blocks: SOURCE_FINALITY });
      await pollSource();
      expect((await burnOnce(w.source, options())).kind).toBe('idle');
      expect(await stored(payment.id)).toMatchObject({
        status: 'paid',
        paidAt: paid.at,
        amountReceivedBaseUnits: AMOUNT,
      });
      expect(await eventTypes(payment.id)).toEqual([
        'payment.processing',
        'payment.paid',
        'payment.payout_sent',
      ]);
      expect(await bridgeRows(payment.id)).toMatchObject([
        {
          step: 'done',
          speed: 'fast',
          burn_tx_hash: burnt.toLowerCase(),
          amount_base_units: AMOUNT.toString(),
        },
      ]);
      expect(await depositBalancesOf(database.handle, payment.id)).toEqual([
        [polygon.chainId, '0', (AMOUNT - FEE).toString(), (AMOUNT - FEE).toString()],
        [base.chainId, AMOUNT.toString(), '0', AMOUNT.toString()],
      ]);
    });

    it('a deposit reorged out before the burn: nothing burnt, pending again; paid again, then fast to exact shares', async () => {
      const payment = await newPayment();
      const address = payment.deposit!.depositAddress as Address;
      await pay(payment);
      await base.anvil.testClient.mine({ blocks: FAST_CONFIRMATIONS });
      await pollSource();
      expect(await stored(payment.id)).toMatchObject({ status: 'processing' });
      // Deep enough in our records, but Base replaced its block before the watcher looked again: not burnt.
      await reorg(base, FAST_CONFIRMATIONS + 1);
      expect(await usdcOf(base, address)).toBe(0n);
      const w = worker();
      expect((await burnOnce(w.source, options())).kind).toBe('idle');
      expect((await pollSource()).reorgDepth).toBeGreaterThan(0);
      expect(await stored(payment.id)).toMatchObject({ status: 'pending', amountReceivedBaseUnits: 0n });
      await base.anvil.testClient.mine({ blocks: SOURCE_FINALITY });
      await pollSource();
      expect((await burnOnce(w.source, options())).kind).toBe('idle');
      expect(await bridgeRows(payment.id)).toEqual([]);
      expect(await base.anvil.publicClient.getCode({ address })).toBeUndefined();

      const again = await pay(payment);
      await base.anvil.testClient.mine({ blocks: FAST_CONFIRMATIONS });
      await burn(w);
      await attest(w);
      await mintAndFlush(w, polygon, settleOptions);
      expect(await stored(payment.id)).toMatchObject({
        status: 'paid',
        txid: again.txHash,
        paidAt: again.at,
      });
      await expectExactShares(payment);
      expect(await usdcOf(base, address)).toBe(0n);
      expect(await eventTypes(payment.id)).toEqual([
        'payment.processing',
        'payment.pending',
        'payment.processing',
        'payment.paid',
        'payment.payout_sent',
      ]);
    });

    it('a burn reorged out after its fast attestation: minted once, paid; the money back at Base is not burnt again', async () => {
      const payment = await newPayment();
      const address = payment.deposit!.depositAddress as Address;
      const paid = await pay(payment);
      await base.anvil.testClient.mine({ blocks: FAST_CONFIRMATIONS });
      const w = worker();
      await burn(w);
      await attest(w);
      // The burn's block and the one Circle waited for are replaced: the transfer stays, the burn is gone.
      await reorg(base, 1 + ATTESTATION_CONFIRMATIONS.fast);
      expect(await usdcOf(base, address)).toBe(AMOUNT);
      await pollSource();
      expect(await stored(payment.id)).toMatchObject({ status: 'processing' });

      // What Circle attested is Circle's to honour: the mint completes, the payment is paid.
      await mintAndFlush(w, polygon, settleOptions);
      expect(await stored(payment.id)).toMatchObject({ status: 'paid', paidAt: paid.at, txid: paid.txHash });
      await expectExactShares(payment);

      // Final on Base, with the money back in the forwarder: never burnt again, never credited again.
      await base.anvil.testClient.mine({ blocks: SOURCE_FINALITY });
      await pollSource();
      for (let pass = 0; pass < 3; pass++) expect((await burnOnce(w.source, options())).kind).toBe('idle');
      expect(await usdcOf(base, address)).toBe(AMOUNT);
      expect(await bridgeRows(payment.id)).toMatchObject([
        { step: 'done', amount_base_units: AMOUNT.toString() },
      ]);
      expect(await stored(payment.id)).toMatchObject({ status: 'paid', amountReceivedBaseUnits: AMOUNT });
      expect(await eventTypes(payment.id)).toEqual([
        'payment.processing',
        'payment.paid',
        'payment.payout_sent',
      ]);
      expect(await depositBalancesOf(database.handle, payment.id)).toEqual([
        [polygon.chainId, '0', (AMOUNT - FEE).toString(), (AMOUNT - FEE).toString()],
        [base.chainId, AMOUNT.toString(), '0', AMOUNT.toString()],
      ]);
    });
  },
);
