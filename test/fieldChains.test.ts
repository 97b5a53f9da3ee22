/**
 * Issue 36, item 4 (decision 0039): every field that names a transaction or a token names the chain it belongs
 * to. On two real anvil nodes wired with CCTP v2, "Polygon" (137, the home chain) and "Base" (8453, a source
 * chain), payments are paid on Base alone, half on each chain, and on Polygon alone; the real watchers record
 * the transfers, the real bridge and settler burn, mint and flush, and the merchant reads them through the real
 * API (status, list, export) and the webhook bodies as written, on a real database of each dialect. The top
 * level (`chain_id`, `token_address`, `txid`) is the home chain's only; a source chain's transaction is in
 * `transfers[]`, beside its own `chain_id`.
 *
 * The test USDC has one address on both chains (the same account deploys it at the same nonce), so here a token
 * address cannot tell the chains apart: that a source chain's token never reaches the top level is proved with
 * distinct addresses in src/domain/payment.test.ts and webhookEvent.test.ts. Transaction hashes are distinct.
 */
import { randomUUID } from 'node:crypto';
import { getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POLYGON_DOMAIN } from '../src/adapters/cctp/cctpMessage.ts';
import { chainReader } from '../src/adapters/chain/chainReader.ts';
import { predictDepositAddress } from '../src/adapters/chain/forwarder.ts';
import { paymentRow } from '../src/adapters/db/paymentRepository.ts';
import { attestOnce } from '../src/app/bridge/attestStep.ts';
import { burnOnce } from '../src/app/bridge/burnStep.ts';
import type { SourceBridgeOptions } from '../src/app/bridge/options.ts';
import { pollChainOnce, type WatchChainOptions } from '../src/app/chain/watchChain.ts';
import type { SettleOptions } from '../src/app/settlement/options.ts';
import type { Payment } from '../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY } from '../src/domain/payout.ts';
import { testPayment } from './fakes/paymentFixture.ts';
import { type ApiHarness, startApiHarness } from './helpers/apiHarness.ts';
import { bridgeWorker, customerPays, mined, mintAndFlush } from './helpers/bridgeWorker.ts';
import { type CctpChain, type CctpChains, startCctpChains } from './helpers/cctpChains.ts';
import { dialects } from './helpers/database.ts';
import { capturingLogger } from './helpers/logCapture.ts';

const HOME = 137;
const BASE = 8453;
const COMMISSION_BPS = 100;
const SOURCE_CONFIRMATIONS = 3;
const HOME_CONFIRMATIONS = 2;
const ATTESTATION_CONFIRMATIONS = { fast: 1, standard: 2 };
const TTL_MS = 60 * 60_000;
const CUSTOMER = 3;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: HOME, domain: POLYGON_DOMAIN },
      { name: 'base', chainId: BASE, domain: 6, maxBurnFeeBps: 10 },
    ],
    { confirmations: ATTESTATION_CONFIRMATIONS, fastFeeBps: 1 },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
}, 120_000);
afterAll(async () => {
  await net?.stop();
});

type Body = Record<string, unknown> & {
  transfers?: { chain_id: number; txid: string; token_address: string }[];
};

describe.each(dialects)('transaction and token fields name their chain, on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let merchantId: string;
  let home: WatchChainOptions;
  let source: WatchChainOptions;
  const { logger } = capturingLogger();
  let paymentNumber = 0;
  const factory = () => net.factories.polygon!.factory;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey, id: merchantId } = await h.merchant());
    const tokens = (chain: CctpChain) => [
      { address: chain.cctp.usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true },
    ];
    // Each watcher starts at its chain's head now: every payment of this database is created after.
    home = {
      chainId: HOME,
      tokens: tokens(polygon),
      maxBlockRange: 100,
      startBlock: await polygon.anvil.publicClient.getBlockNumber(),
      cctpMessageTransmitter: polygon.cctp.messageTransmitter,
    };
    source = {
      chainId: BASE,
      tokens: tokens(base),
      maxBlockRange: 100,
      startBlock: await base.anvil.publicClient.getBlockNumber(),
      homeChainId: HOME,
      homeFactory: factory(),
    };
  }, 60_000);
  afterAll(() => h?.close());

  // Transfers of two chains count in block-time order: each test starts both chains and the clock at one time.
  beforeEach(async () => {
    const latest = await Promise.all(
      [polygon, base].map(async (c) => (await c.anvil.publicClient.getBlock()).timestamp),
    );
    const now = BigInt(Math.max(...latest.map(Number)) + 1);
    for (const chain of [polygon, base]) {
      await chain.anvil.testClient.setNextBlockTimestamp({ timestamp: now });
      await chain.anvil.testClient.mine({ blocks: 1 });
    }
    h.clock.set(new Date(Number(now) * 1000));
  });

  /** A 10 USDC payment of the API's merchant, at the V3 factory's address (the same on both chains). */
  async function newPayment(): Promise<Payment> {
    paymentNumber += 1;
    const merchant = privateKeyToAccount(generatePrivateKey()).address;
    const treasury = privateKeyToAccount(generatePrivateKey()).address;
    const id = randomUUID();
    const fixture = testPayment(paymentNumber);
    const payment: Payment = {
      ...fixture,
      id,
      merchantId,
      payoutAddress: merchant,
      webhookUrl: 'https://merchant.example.test/hooks',
      quote: { ...fixture.quote, commissionBps: COMMISSION_BPS },
      createdAt: h.clock.now(),
      updatedAt: h.clock.now(),
      expiresAt: new Date(h.clock.now().getTime() + TTL_MS),
      deposit: {
        chainId: HOME,
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
    await h.database.handle.db.insertInto('payments').values(paymentRow(payment)).execute();
    return payment;
  }

  const pay = async (chain: CctpChain, payment: Payment, amount: bigint): Promise<Hex> =>
    (await customerPays(chain, CUSTOMER, payment.deposit!.depositAddress, amount)).transactionHash;
  const watcher = (chain: CctpChain, confirmations: number) => ({
    ledger: h.stores.ledger,
    chain: chainReader(chain.anvil.publicClient, { kind: 'confirmations', confirmations }),
    clock: h.clock,
    logger,
  });
  /** Both chains' blocks mined until their transfers are final, then both watchers polled. */
  async function finalOnBoth(): Promise<void> {
    await base.anvil.testClient.mine({ blocks: SOURCE_CONFIRMATIONS });
    await polygon.anvil.testClient.mine({ blocks: HOME_CONFIRMATIONS });
    await pollChainOnce(watcher(base, SOURCE_CONFIRMATIONS), source);
    await pollChainOnce(watcher(polygon, HOME_CONFIRMATIONS), home);
  }

  const get = async (url: string) => {
    const response = await h.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
    expect(response.statusCode).toBe(200);
    return response;
  };
  const status = async (paymentId: string) =>
    (await get(`/payments/api/status/${paymentId}/`)).json() as Body;
  const listed = async (paymentId: string) => {
    const { payments } = (await get('/payments/api/payments/?limit=100')).json() as { payments: Body[] };
    const found = payments.find((p) => p.payment_id === paymentId);
    expect(found).toBeDefined();
    return found!;
  };
  /** The export's `txid` cell of the payment (no cell of these rows is quoted). */
  const exportedTxid = async (paymentId: string) => {
    const [header, ...rows] = (await get('/payments/api/payments/export/')).body.trim().split('\r\n');
    const columns = header!.split(',');
    const row = rows.map((r) => r.split(',')).find((cells) => cells[0] === paymentId);
    expect(row).toBeDefined();
    return row![columns.indexOf('txid')];
  };
  const webhooks = async (paymentId: string) =>
    (await h.stores.ledger.listEvents(paymentId)).map((e) => ({
      type: e.type,
      body: JSON.parse(e.payload) as Body,
    }));

  /** Each transfer listed names the chain whose transaction and token it is: Base's hash is Base's, and so on. */
  function expectTransfersOnTheirChains(body: Body, sent: Record<Hex, number>): void {
    expect(Object.fromEntries((body.transfers ?? []).map((t) => [t.txid, t.chain_id]))).toEqual(sent);
    for (const t of body.transfers ?? [])
      expect(t.token_address).toBe(getAddress((t.chain_id === HOME ? polygon : base).cctp.usdc));
  }

  /** The home chain at the top level: its chain id and token, and txid only when the home chain has it. */
  function expectTopLevelHome(body: Body, txid: Hex | undefined): void {
    expect(body).toMatchObject({ chain_id: HOME, token_address: polygon.cctp.usdc, token_symbol: 'USDC' });
    if (txid) expect(body.txid).toBe(txid);
    else expect(body).not.toHaveProperty('txid');
  }

  it('paid on Base alone: txid is absent at the top level (status, list, export) and null in every webhook; transfers[] names Base', async () => {
    const payment = await newPayment();
    const onBase = await pay(base, payment, 10_000_000n);
    await finalOnBoth();
    // The payment knows the chain of the transfer that completed it.
    expect(await h.stores.payments.findById(payment.id)).toMatchObject({ txid: onBase, txidChainId: BASE });

    for (const body of [await status(payment.id), await listed(payment.id)]) {
      expect(body.status).toBe('paid');
      expectTopLevelHome(body, undefined);
    }
    expectTransfersOnTheirChains(await status(payment.id), { [onBase]: BASE });
    expect(await exportedTxid(payment.id)).toBe('');

    const told = await webhooks(payment.id);
    expect(told.map((e) => e.type)).toEqual(['payment.processing', 'payment.paid']);
    for (const { body } of told) {
      expect(body).toMatchObject({ coin_type: 'polygon_usdc', token_address: polygon.cctp.usdc, txid: null });
      expectTransfersOnTheirChains(body, { [onBase]: BASE });
    }

    // Burnt on Base, minted and flushed on Polygon: the payout event's txid is still no Base transaction.
    const worker = bridgeWorker({
      handle: h.database.handle,
      clock: h.clock,
      home: polygon,
      source: base,
      attestationUrl: net.attestation.url,
    });
    const sourceOptions: SourceBridgeOptions = {
      homeChainId: HOME,
      tokenAddress: base.cctp.usdc,
      speed: 'standard',
      maxFeeBps: 10,
      // Since decision 0037 (the fast burn's depth): a transfer one block deep may be burnt fast.
      fastConfirmations: 1,
      dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
      relayerLowBalanceWei: 10n ** 18n,
      attestationPollMs: 2_000,
      attestationExpectedMs: 60_000,
    };
    const sent = await burnOnce(worker.source, sourceOptions);
    if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${sent.kind}`);
    await mined(base, sent.txHash as Hex);
    expect((await burnOnce(worker.source, sourceOptions)).kind).toBe('burnt');
    await base.anvil.testClient.mine({ blocks: ATTESTATION_CONFIRMATIONS.standard });
    h.clock.advance(60_000);
    expect((await attestOnce(worker.source, sourceOptions)).attested).toHaveLength(1);
    const settle: SettleOptions = {
      chainId: HOME,
      payoutPolicy: DEFAULT_PAYOUT_POLICY,
      relayerLowBalanceWei: 10n ** 18n,
    };
    await mintAndFlush(worker, polygon, settle);
    const payoutSent = (await webhooks(payment.id)).find((e) => e.type === 'payment.payout_sent');
    expect(payoutSent?.body).toMatchObject({
      status: 'paid',
      token_address: polygon.cctp.usdc,
      txid: null,
      payout_txid: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(payoutSent?.body).not.toHaveProperty('transfers');
    // Our own mint on Polygon is no customer transfer: the status still lists Base's alone, txid still absent.
    await finalOnBoth();
    const settled = await status(payment.id);
    expect(settled).toMatchObject({ status: 'paid', payout_status: 'sent' });
    expectTopLevelHome(settled, undefined);
    expectTransfersOnTheirChains(settled, { [onBase]: BASE });
  });

  it('half on each chain, Base completing it: no txid at the top level though Polygon has a half; each half named with its chain', async () => {
    const payment = await newPayment();
    const onPolygon = await pay(polygon, payment, 5_000_000n);
    // Base's half thirty seconds later: the transfer that completes the payment.
    await base.anvil.testClient.increaseTime({ seconds: 30 });
    const onBase = await pay(base, payment, 5_000_000n);
    await finalOnBoth();
    const halves = { [onPolygon]: HOME, [onBase]: BASE };

    const read = await status(payment.id);
    expect(read).toMatchObject({ status: 'paid', amount_received: '10.00' });
    expectTopLevelHome(read, undefined);
    expectTransfersOnTheirChains(read, halves);
    expectTopLevelHome(await listed(payment.id), undefined);
    expect(await exportedTxid(payment.id)).toBe('');
    const told = await webhooks(payment.id);
    expect(told.at(-1)).toMatchObject({ type: 'payment.paid', body: { txid: null } });
    expectTransfersOnTheirChains(told.at(-1)!.body, halves);
  });

  it('half on each chain, Polygon completing it: txid is the Polygon transfer everywhere; Base’s half only in transfers[]', async () => {
    const payment = await newPayment();
    const onBase = await pay(base, payment, 5_000_000n);
    await polygon.anvil.testClient.increaseTime({ seconds: 30 });
    const onPolygon = await pay(polygon, payment, 5_000_000n);
    await finalOnBoth();
    const halves = { [onPolygon]: HOME, [onBase]: BASE };

    const read = await status(payment.id);
    expect(read.status).toBe('paid');
    expectTopLevelHome(read, onPolygon);
    expectTransfersOnTheirChains(read, halves);
    expectTopLevelHome(await listed(payment.id), onPolygon);
    expect(await exportedTxid(payment.id)).toBe(onPolygon);
    const told = await webhooks(payment.id);
    expect(told.at(-1)).toMatchObject({
      type: 'payment.paid',
      body: { txid: onPolygon, token_address: polygon.cctp.usdc },
    });
    expectTransfersOnTheirChains(told.at(-1)!.body, halves);
  });

  it('paid on Polygon alone: reads as it always did', async () => {
    const payment = await newPayment();
    const onPolygon = await pay(polygon, payment, 10_000_000n);
    await finalOnBoth();
    for (const body of [await status(payment.id), await listed(payment.id)]) {
      expect(body.status).toBe('paid');
      expectTopLevelHome(body, onPolygon);
    }
    expectTransfersOnTheirChains(await status(payment.id), { [onPolygon]: HOME });
    expect(await exportedTxid(payment.id)).toBe(onPolygon);
    for (const { body } of await webhooks(payment.id)) expect(body.txid).toBe(onPolygon);
  });
});
