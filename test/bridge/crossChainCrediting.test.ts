/**
 * One payment paid on several chains (decision 0030), on two real anvil nodes wired with CCTP v2: "Polygon"
 * (137, the home chain, where payments' deposit rows live) and "Base" (8453, a source chain), the version 3
 * factory at one address on both. Each chain has its own watcher (cursor, reorgs, finality: 2 confirmations on
 * Polygon, 3 on Base), both writing to one real database of each dialect.
 */
import { randomBytes } from 'node:crypto';
import { type Address, getAddress, type Hex, toHex, zeroAddress } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paymentStatusResponse } from '../../src/adapters/api/presenters.ts';
import { PaymentStatusResponse } from '../../src/adapters/api/schemas.ts';
import { burnAttestation, createAttestationClient } from '../../src/adapters/cctp/attestationClient.ts';
import { addressToBytes32, FINALITY_STANDARD, POLYGON_DOMAIN } from '../../src/adapters/cctp/cctpMessage.ts';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import {
  forwarderFactoryV3Abi,
  testMessageTransmitterV2Abi,
  testTokenMessengerV2Abi,
  testUsdcAbi,
} from '../../src/adapters/chain/contractAbis.ts';
import { deployFactory } from '../../src/adapters/chain/deployContracts.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { toForwarderStruct } from '../../src/adapters/chain/forwarder.ts';
import { marketRates } from '../../src/adapters/rates/marketRates.ts';
import { staticSource } from '../../src/adapters/rates/static.ts';
import { expirePayments } from '../../src/app/chain/refreshPayments.ts';
import { pollChainOnce, type WatchChainOptions } from '../../src/app/chain/watchChain.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { createPayment } from '../../src/app/payments/createPayment.ts';
import { getPaymentStatus } from '../../src/app/payments/getPaymentStatus.ts';
import type { DepositPlanner } from '../../src/app/payments/ports.ts';
import type { Merchant } from '../../src/domain/merchant.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { payoutStateOf } from '../../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY } from '../../src/domain/payout.ts';
import { createStores } from '../../src/main/wiring.ts';
import { type CctpChain, type CctpChains, CIRCLE, RELAYER, startCctpChains } from '../helpers/cctpChains.ts';
import { TestClock } from '../helpers/clock.ts';
import { alignChainClocks, homeWatch, sourceWatch } from '../helpers/crossChainScene.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

const CUSTOMER = 3;
const POLYGON_CONFIRMATIONS = 2;
const BASE_CONFIRMATIONS = 3;
const TTL_MS = 60 * 60_000;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;
/** A version 2 factory on Polygon: its deposit addresses exist on Polygon alone. */
let oldFactory: Address;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: POLYGON_DOMAIN },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: 10 },
    ],
    { confirmations: { fast: 1, standard: 2 }, fastFeeBps: 1 },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
  ({ factory: oldFactory } = await deployFactory(
    polygon.anvil.wallet(RELAYER),
    polygon.anvil.publicClient,
    2,
  ));
}, 120_000);

afterAll(async () => {
  await net?.stop();
});

const v3Factory = () => net.factories.polygon!.factory;
const randomAddress = (): Address => getAddress(toHex(randomBytes(20)));

async function mined(chain: CctpChain, hash: Hex): Promise<Hex> {
  const receipt = await chain.anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return hash;
}

/** USDC minted to the customer, then sent by them to `to` in its own block: the transfer's hash. */
async function pay(chain: CctpChain, to: string, amount: bigint): Promise<Hex> {
  const customer = chain.anvil.wallet(CUSTOMER);
  await mined(
    chain,
    await chain.anvil.wallet(CIRCLE).writeContract({
      address: chain.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [customer.account.address, amount],
    }),
  );
  return mined(
    chain,
    await customer.writeContract({
      address: chain.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [to as Address, amount],
    }),
  );
}

/** The attestation of a burn on Base, mining Base's blocks until the local service signs it, minted on Polygon. */
async function mintOnPolygon(burnTx: Hex, burn: { mintRecipient: Address; amount: bigint }): Promise<void> {
  const client = createAttestationClient({ baseUrl: net.attestation.url, timeoutMs: 5_000 });
  for (let attempt = 0; attempt < 10; attempt++) {
    const found = burnAttestation(await client.messagesOf(base.domain, burnTx), {
      sourceDomain: base.domain,
      ...burn,
    });
    if (found.state === 'complete') {
      await mined(
        polygon,
        await polygon.anvil.wallet(RELAYER).writeContract({
          address: polygon.cctp.messageTransmitter,
          abi: testMessageTransmitterV2Abi,
          functionName: 'receiveMessage',
          args: [found.message.message, found.message.attestation],
        }),
      );
      return;
    }
    await base.anvil.testClient.mine({ blocks: 1 });
  }
  throw new Error('the burn was never attested');
}

describe.each(dialects)('crediting a payment across chains, %s', (dialect) => {
  let database: TestDatabase;
  let stores: ReturnType<typeof createStores>;
  let clock: TestClock;
  let merchant: Merchant;
  let treasury: Address;
  const { logger } = capturingLogger();
  const planners: Record<'v3' | 'old', DepositPlanner> = {} as never;
  let home: WatchChainOptions;
  let source: WatchChainOptions;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    stores = createStores(database.handle);
    const latest = await polygon.anvil.publicClient.getBlock();
    clock = new TestClock(new Date(Number(latest.timestamp) * 1000));
    treasury = randomAddress();
    const plannerOf = (factoryAddress: Address, forwarderVersion: 2 | 3) =>
      depositPlanner({
        chainId: 137,
        tokenAddress: polygon.cctp.usdc,
        factoryAddress,
        treasuryAddress: treasury,
        forwarderVersion,
      });
    planners.v3 = plannerOf(v3Factory(), 3);
    planners.old = plannerOf(oldFactory, 2);
    ({ merchant } = await createMerchant(
      { merchants: stores.merchants, clock, webhookAllowPrivate: true },
      {
        name: 'Any Chain Shop',
        wallet: randomAddress(),
        webhookUrl: 'http://127.0.0.1:9/hooks',
        commissionPercent: '2.5',
      },
    ));
    // Each watcher starts at its chain's head now: every payment of this database is created after.
    home = await homeWatch(polygon);
    source = await sourceWatch(base, polygon, v3Factory());
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  // Transfers of two chains count in block-time order: each test starts with both chains (and the test clock)
  // at one time, as real chains' clocks agree to seconds, whatever the tests before moved.
  beforeEach(async () => {
    clock.set(await alignChainClocks([polygon, base]));
  });

  const readers = () => ({
    polygon: chainReader(createRpcClient([polygon.anvil.rpcUrl]), {
      kind: 'confirmations',
      confirmations: POLYGON_CONFIRMATIONS,
    }),
    base: chainReader(createRpcClient([base.anvil.rpcUrl]), {
      kind: 'confirmations',
      confirmations: BASE_CONFIRMATIONS,
    }),
  });
  const deps = (chain: 'polygon' | 'base') => ({
    ledger: stores.ledger,
    chain: readers()[chain],
    clock,
    logger,
  });
  const pollHome = () => pollChainOnce(deps('polygon'), home);
  const pollSource = () => pollChainOnce(deps('base'), source);
  const pollBoth = async () => {
    await pollSource();
    await pollHome();
  };

  const newPayment = (amount: string, factory: 'v3' | 'old' = 'v3'): Promise<Payment> =>
    createPayment(
      {
        ...stores,
        deposits: { live: planners[factory] },
        rates: marketRates({
          sources: [staticSource({ EUR: '1.08' }, () => clock.now())],
          clock,
          cacheTtlMs: 60_000,
          maxAgeMs: 60_000,
          maxSpreadBps: 100,
          timeoutMs: 1_000,
          logger,
        }),
        clock,
        maxAmountBaseUnits: 10n ** 12n,
        minAmountBaseUnits: 1n,
        paymentTtlMs: TTL_MS,
        webhookAllowPrivate: true,
        paymentRequests: undefined,
      },
      merchant,
      { amount, currency: 'USDC' },
    );

  /** The status response as the API serializes it (its schema checked). */
  const statusBody = async (paymentId: string) => {
    const { payment, state, unaccepted, transfers } = await getPaymentStatus(
      { payments: stores.payments, ledger: stores.ledger, clock },
      merchant.id,
      paymentId,
    );
    const body = paymentStatusResponse(
      payment,
      state,
      payoutStateOf(payment, state, DEFAULT_PAYOUT_POLICY, clock.now()),
      { transfers, unaccepted },
    );
    return PaymentStatusResponse.parse(body);
  };
  const events = async (paymentId: string) =>
    (await stores.ledger.listEvents(paymentId)).map((e) => ({
      type: e.type,
      body: JSON.parse(e.payload) as Record<string, unknown>,
    }));

  it('half on Base and half on Polygon: processing until both are final (Base one block short is not), then paid once', async () => {
    const payment = await newPayment('10');
    const address = payment.deposit!.depositAddress;
    const onBase = await pay(base, address, 4_000_000n);
    // Polygon's half a minute later: it is the transfer that completes the payment.
    await polygon.anvil.testClient.increaseTime({ seconds: 60 });
    const onPolygon = await pay(polygon, address, 6_000_000n);
    await pollBoth();
    expect((await statusBody(payment.id)).transfers).toEqual([
      {
        chain_id: 8453,
        txid: onBase,
        amount: '4.00',
        token_address: base.cctp.usdc,
        token_symbol: 'USDC',
        final: false,
      },
      {
        chain_id: 137,
        txid: onPolygon,
        amount: '6.00',
        token_address: polygon.cctp.usdc,
        token_symbol: 'USDC',
        final: false,
      },
    ]);

    // Polygon's half final; Base's one block short of its three confirmations.
    await polygon.anvil.testClient.mine({ blocks: POLYGON_CONFIRMATIONS });
    await base.anvil.testClient.mine({ blocks: BASE_CONFIRMATIONS - 1 });
    await pollBoth();
    const waiting = await statusBody(payment.id);
    expect(waiting).toMatchObject({ status: 'processing', amount_received: '10.00', amount_due: '0.00' });
    expect(waiting.transfers?.map((t) => [t.chain_id, t.final])).toEqual([
      [8453, false],
      [137, true],
    ]);
    expect((await stores.payments.findById(payment.id))!.amountReceivedBaseUnits).toBe(6_000_000n);

    await base.anvil.testClient.mine({ blocks: 1 });
    await pollBoth();
    const paid = await statusBody(payment.id);
    const polygonBlock = await polygon.anvil.publicClient.getBlock({
      blockNumber: (await polygon.anvil.publicClient.getTransactionReceipt({ hash: onPolygon })).blockNumber,
    });
    expect(paid).toMatchObject({
      status: 'paid',
      amount_received: '10.00',
      amount_overpaid: '0.00',
      txid: onPolygon,
      paid_at: new Date(Number(polygonBlock.timestamp) * 1000).toISOString(),
      late: false,
    });
    expect(paid.transfers?.map((t) => [t.chain_id, t.final])).toEqual([
      [8453, true],
      [137, true],
    ]);
    const told = await events(payment.id);
    expect(told.map((e) => e.type)).toEqual(['payment.processing', 'payment.paid']);
    expect(told[1]!.body).toMatchObject({
      status: 'paid',
      amount_received: '10.00',
      txid: onPolygon,
      transfers: paid.transfers,
    });
    // Each chain's final sum is its own, for that chain's settler (Polygon's) or burner (Base's). The test USDC
    // has one address on both chains (the same account deploys it at the same nonce): deposit_balances is keyed
    // per chain (migration 0027), so neither sum overwrites the other.
    expect(base.cctp.usdc).toBe(polygon.cctp.usdc);
    const balances = await database.handle.db
      .selectFrom('deposit_balances')
      .select(['chain_id', 'received_base_units'])
      .where('owner_id', '=', payment.id)
      .orderBy('chain_id')
      .execute();
    expect(balances.map((b) => [Number(b.chain_id), b.received_base_units])).toEqual([
      [137, '6000000'],
      [8453, '4000000'],
    ]);
  });

  it('a reorg on Base removing its half takes the payment back to pending, and the merchant is told', async () => {
    const payment = await newPayment('10');
    await pay(base, payment.deposit!.depositAddress, 5_000_000n);
    await pollBoth();
    expect(await statusBody(payment.id)).toMatchObject({ status: 'processing', amount_received: '5.00' });

    await base.anvil.testClient.request({ method: 'anvil_reorg', params: [1, []] } as never);
    const result = await pollSource();
    expect(result.reorgDepth).toBeGreaterThan(0);
    const after = await statusBody(payment.id);
    expect(after).toMatchObject({ status: 'pending', amount_received: '0.00', amount_due: '10.00' });
    expect(after.transfers).toEqual([]);
    const told = await events(payment.id);
    expect(told.map((e) => e.type)).toEqual(['payment.processing', 'payment.pending']);
    expect(told[1]!.body).toMatchObject({ status: 'pending', amount_received: '0.00', transfers: [] });
  });

  it('a transfer on Base after the link expired pays it late, as on Polygon', async () => {
    const payment = await newPayment('10');
    clock.advance(TTL_MS + 60_000);
    await base.anvil.testClient.increaseTime({ seconds: Math.ceil((TTL_MS + 120_000) / 1000) });
    await expirePayments({ ledger: stores.ledger, clock });
    expect((await statusBody(payment.id)).status).toBe('expired');

    const late = await pay(base, payment.deposit!.depositAddress, 10_000_000n);
    await base.anvil.testClient.mine({ blocks: BASE_CONFIRMATIONS });
    await pollBoth();
    // Base's transaction is named with its chain, in transfers; the top-level txid is the home chain's only
    // (decision 0039), and none of Polygon's paid this payment.
    const paidLate = await statusBody(payment.id);
    expect(paidLate).toMatchObject({
      status: 'paid',
      late: true,
      chain_id: 137,
      transfers: [expect.objectContaining({ chain_id: 8453, txid: late, final: true })],
    });
    expect(paidLate).not.toHaveProperty('txid');
    // Seen and final in one pass, as on Polygon: processing, then paid.
    expect((await events(payment.id)).map((e) => e.type)).toEqual([
      'payment.expired',
      'payment.processing',
      'payment.paid',
    ]);
  });

  it('a payment of an older factory is not credited on Base, where its address is not its forwarder', async () => {
    const old = await newPayment('10', 'old');
    const current = await newPayment('10');
    await pay(base, old.deposit!.depositAddress, 10_000_000n);
    const counted = await pay(base, current.deposit!.depositAddress, 3_000_000n);
    await pollBoth();
    expect(await statusBody(old.id)).toMatchObject({ status: 'pending', transfers: [] });
    expect(await stores.ledger.listTransfers(old.id)).toEqual([]);
    // The same scan saw the current factory's payment.
    expect((await statusBody(current.id)).transfers).toMatchObject([{ chain_id: 8453, txid: counted }]);
    // A source chain's watcher without the factory is refused: it would credit addresses that are not ours there.
    await expect(pollChainOnce(deps('base'), { ...source, homeFactory: undefined })).rejects.toThrow(
      RangeError,
    );
  });

  it('our own CCTP mint into the address on Polygon is not a payment; a customer’s own CCTP transfer to it is', async () => {
    const payment = await newPayment('10');
    const address = payment.deposit!.depositAddress as Address;
    await pay(base, address, 10_000_000n);
    await base.anvil.testClient.mine({ blocks: BASE_CONFIRMATIONS });
    await pollBoth();
    expect(await statusBody(payment.id)).toMatchObject({ status: 'paid', amount_received: '10.00' });

    // The settlement: the forwarder on Base burns what it holds, minted to itself on Polygon.
    const params = {
      merchant: getAddress(payment.payoutAddress),
      treasury: getAddress(payment.deposit!.treasuryAddress),
      feeBps: payment.quote.commissionBps,
      paymentId: payment.id,
    };
    const settlement = await mined(
      base,
      await base.anvil.wallet(RELAYER).writeContract({
        address: v3Factory(),
        abi: forwarderFactoryV3Abi,
        functionName: 'deployAndBurn',
        args: [toForwarderStruct(params), 10_000_000n, 0n, FINALITY_STANDARD],
      }),
    );
    await mintOnPolygon(settlement, { mintRecipient: address, amount: 10_000_000n });
    expect(await polygonBalance(address)).toBe(10_000_000n);
    await polygon.anvil.testClient.mine({ blocks: POLYGON_CONFIRMATIONS });
    await pollBoth();
    const settled = await statusBody(payment.id);
    expect(settled).toMatchObject({ status: 'paid', amount_received: '10.00', amount_overpaid: '0.00' });
    expect(settled.transfers?.map((t) => t.chain_id)).toEqual([8453]);

    // The customer's own CCTP transfer from Base to the address: their wallet is the depositor, so it pays.
    const customer = base.anvil.wallet(CUSTOMER);
    await mined(
      base,
      await base.anvil.wallet(CIRCLE).writeContract({
        address: base.cctp.usdc,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [customer.account.address, 3_000_000n],
      }),
    );
    await mined(
      base,
      await customer.writeContract({
        address: base.cctp.usdc,
        abi: testUsdcAbi,
        functionName: 'approve',
        args: [base.cctp.tokenMessenger, 3_000_000n],
      }),
    );
    const ownBurn = await mined(
      base,
      await customer.writeContract({
        address: base.cctp.tokenMessenger,
        abi: testTokenMessengerV2Abi,
        functionName: 'depositForBurn',
        args: [
          3_000_000n,
          POLYGON_DOMAIN,
          addressToBytes32(address),
          base.cctp.usdc,
          addressToBytes32(zeroAddress),
          0n,
          FINALITY_STANDARD,
        ],
      }),
    );
    // Minted once attested, a while after the first payment.
    await polygon.anvil.testClient.increaseTime({ seconds: 60 });
    await mintOnPolygon(ownBurn, { mintRecipient: address, amount: 3_000_000n });
    await polygon.anvil.testClient.mine({ blocks: POLYGON_CONFIRMATIONS });
    await pollBoth();
    const topped = await statusBody(payment.id);
    expect(topped).toMatchObject({ status: 'paid', amount_received: '13.00', amount_overpaid: '3.00' });
    expect(topped.transfers).toMatchObject([
      { chain_id: 8453, amount: '10.00', final: true },
      { chain_id: 137, amount: '3.00', token_address: polygon.cctp.usdc, final: true },
    ]);
  });
});

function polygonBalance(owner: Address): Promise<bigint> {
  return polygon.anvil.publicClient.readContract({
    address: polygon.cctp.usdc,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}
