/**
 * Gasless payment on a source chain (decision 0012, issue 30): on two real anvil nodes wired with CCTP v2,
 * "Polygon" (137, the home chain, here WITHOUT a gasless relayer key) and "Base" (8453, a source chain, with
 * one). The checkout is the service's own wiring (checkoutGasless, checkoutModeNetworks) over a real socket. A
 * customer holding USDC and no gas on Base signs over Base's USDC; the authorization is stored with Base's chain
 * and token, relayed by Base's relayer alone, and Base's watcher records the transfer that pays the payment.
 * Polygon, without a key, offers no gasless payment.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type Address, getAddress, type Hex, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLYGON_DOMAIN } from '../../src/adapters/cctp/cctpMessage.ts';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { authorizationChain } from '../../src/adapters/chain/eip3009.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { marketRates } from '../../src/adapters/rates/marketRates.ts';
import { staticSource } from '../../src/adapters/rates/static.ts';
import { pollChainOnce, type WatchChainOptions } from '../../src/app/chain/watchChain.ts';
import { type RelayAuthorizationsDeps, relayOnce } from '../../src/app/gasless/relayAuthorizations.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { createPayment } from '../../src/app/payments/createPayment.ts';
import { getPaymentStatus } from '../../src/app/payments/getPaymentStatus.ts';
import type { Merchant } from '../../src/domain/merchant.ts';
import type { Payment } from '../../src/domain/payment.ts';
import type { AuthorizationDomain, TransferAuthorization } from '../../src/domain/transferAuthorization.ts';
import type { HomeChain } from '../../src/main/chains/model.ts';
import { checkoutGasless, checkoutModeNetworks } from '../../src/main/checkoutServices.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { createStores } from '../../src/main/wiring.ts';
import { sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { type CctpChain, type CctpChains, CIRCLE, startCctpChains } from '../helpers/cctpChains.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { signAuthorization } from '../helpers/transferAuthorization.ts';

/** The gasless relayer's anvil account (the sandbox's too): it holds gas on both chains. */
const GASLESS_RELAYER = 5;
const BASE_CONFIRMATIONS = 2;
const MIN_VALUE = 500_000n;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: POLYGON_DOMAIN },
      { name: 'base', chainId: 8453, domain: 6 },
    ],
    { confirmations: { fast: 1, standard: 2 }, fastFeeBps: 1 },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
}, 120_000);

afterAll(async () => {
  await net?.stop();
});

/**
 * The chains as resolveChains resolves them, with only what the checkout's wiring reads: Polygon home without a
 * gasless key, Base its source with one.
 */
function resolvedChains(): HomeChain[] {
  const factoryAddress = net.factories.polygon!.factory;
  const source = {
    settings: { role: 'source', chainId: 8453 },
    target: { chainId: 8453, tokenAddress: base.cctp.usdc, factoryAddress, forwarderVersion: 3 },
    rpcUrls: [base.anvil.rpcUrl],
    relayerKey: undefined,
    gaslessRelayerKey: sandboxPrivateKey(GASLESS_RELAYER),
  };
  const home = {
    settings: { role: 'home', chainId: 137 },
    modes: ['live'],
    target: { chainId: 137, tokenAddress: polygon.cctp.usdc, factoryAddress, forwarderVersion: 3 },
    rpcUrls: [polygon.anvil.rpcUrl],
    relayerKey: undefined,
    gaslessRelayerKey: undefined,
    sources: [source],
  };
  return [home as unknown as HomeChain];
}

describe.each(dialects)('gasless payment on a source chain, %s', (dialect) => {
  let database: TestDatabase;
  let stores: ReturnType<typeof createStores>;
  let clock: TestClock;
  let merchant: Merchant;
  let app: FastifyInstance;
  let origin: string;
  let sourceWatch: WatchChainOptions;
  const { logger } = capturingLogger();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    stores = createStores(database.handle);
    const latest = await base.anvil.publicClient.getBlock();
    clock = new TestClock(new Date(Number(latest.timestamp) * 1000));
    ({ merchant } = await createMerchant(
      { merchants: stores.merchants, clock, webhookAllowPrivate: true },
      {
        name: 'Any Chain Shop',
        wallet: getAddress(toHex(randomBytes(20))),
        webhookUrl: 'http://127.0.0.1:9/hooks',
      },
    ));
    const chains = resolvedChains();
    const networks = [
      { name: 'Polygon', chainId: 137, explorerUrl: 'https://polygonscan.com' },
      { name: 'Base', chainId: 8453, explorerUrl: 'https://basescan.org' },
    ];
    app = await buildCheckoutServer({
      ...stores,
      clock,
      logger,
      network: networks,
      modeNetworks: checkoutModeNetworks(chains, networks),
      gasless: checkoutGasless(stores, chains, clock, logger, {
        buckets: memoryBucketStore(),
        minValueBaseUnits: MIN_VALUE,
      }),
    });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    sourceWatch = {
      chainId: 8453,
      tokens: [{ address: base.cctp.usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true }],
      maxBlockRange: 100,
      startBlock: await base.anvil.publicClient.getBlockNumber(),
      homeChainId: 137,
      homeFactory: net.factories.polygon!.factory,
    };
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const newPayment = (amount: string): Promise<Payment> =>
    createPayment(
      {
        ...stores,
        deposits: {
          live: depositPlanner({
            chainId: 137,
            tokenAddress: polygon.cctp.usdc,
            factoryAddress: net.factories.polygon!.factory,
            treasuryAddress: getAddress(toHex(randomBytes(20))),
            forwarderVersion: 3,
          }),
        },
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
        paymentTtlMs: 60 * 60_000,
        webhookAllowPrivate: true,
        paymentRequests: undefined,
      },
      merchant,
      { amount, currency: 'USDC' },
    );

  /** A customer on `chain` with `baseUnits` of its USDC and no gas at all. */
  const customerWith = async (chain: CctpChain, baseUnits: bigint) => {
    const account = privateKeyToAccount(generatePrivateKey());
    const hash = await chain.anvil.wallet(CIRCLE).writeContract({
      address: chain.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [account.address, baseUnits],
    });
    await chain.anvil.publicClient.waitForTransactionReceipt({ hash });
    expect(await chain.anvil.publicClient.getBalance({ address: account.address })).toBe(0n);
    return account;
  };
  const usdcOf = (chain: CctpChain, holder: string) =>
    chain.anvil.publicClient.readContract({
      address: chain.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'balanceOf',
      args: [holder as Address],
    });

  /** What the chain's gasless relayer job does on each pass (worker.ts), on that chain. */
  const relayingOn = (chain: CctpChain): RelayAuthorizationsDeps => {
    const client = createRpcClient([chain.anvil.rpcUrl]);
    const relayer = createRelayer({
      client,
      chainId: chain.chainId,
      relayerKey: sandboxPrivateKey(GASLESS_RELAYER),
    });
    return {
      gasless: stores.gaslessAuthorizations,
      relayer,
      chain: authorizationChain(client, chain.chainId, relayer.address),
      payments: stores.payments,
      ledger: stores.ledger,
      clock,
      logger,
    };
  };

  const get = async (path: string) => {
    const response = await fetch(`${origin}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('a customer with USDC and no gas on Base signs; Base’s relayer submits; the payment is paid by that transfer on Base', async () => {
    const payment = await newPayment('12');
    const deposit = payment.deposit!.depositAddress;

    // The page offers gasless on Base alone: Polygon has no gasless relayer key.
    const page = await (await fetch(`${origin}/pay/${payment.id}`)).text();
    expect(page).toMatch(/value="8453"[^>]*data-gasless-here="true"/);
    expect(page).toMatch(/value="137"[^>]*data-gasless-here=""/);

    const offer = await get(`/pay/${payment.id}/gasless.json?chain=8453`);
    expect(offer.status).toBe(200);
    const domain = offer.body.domain as AuthorizationDomain;
    // The domain is Base's USDC on Base, not the payment's home token.
    expect(domain).toMatchObject({ chainId: 8453 });
    expect(getAddress(domain.verifyingContract)).toBe(getAddress(base.cctp.usdc));
    expect(offer.body).toMatchObject({ to: deposit, value: '12000000' });

    const customer = await customerWith(base, 12_000_000n);
    const authorization: TransferAuthorization = {
      from: customer.address.toLowerCase(),
      to: deposit.toLowerCase(),
      valueBaseUnits: 12_000_000n,
      validAfter: 0n,
      validBefore: BigInt(offer.body.valid_before as string),
      nonce: toHex(randomBytes(32)),
    };
    const signature = await signAuthorization(customer, domain, authorization);
    const body = {
      from: customer.address,
      to: deposit,
      value: '12000000',
      valid_after: '0',
      valid_before: authorization.validBefore.toString(),
      nonce: authorization.nonce,
      signature,
    };
    // Posted for Polygon, the signature over Base's USDC is refused there: Polygon takes no signed transfers.
    const onPolygon = await post(`/pay/${payment.id}/authorization`, { ...body, chain_id: 137 });
    expect(onPolygon).toMatchObject({ status: 409, body: { code: 'GASLESS_UNAVAILABLE' } });
    const accepted = await post(`/pay/${payment.id}/authorization`, { ...body, chain_id: 8453 });
    expect(accepted).toMatchObject({ status: 202, body: { status: 'pending' } });
    const [stored] = await stores.gaslessAuthorizations.listForPayment(payment.id);
    expect(stored).toMatchObject({
      chainId: 8453,
      tokenAddress: base.cctp.usdc.toLowerCase(),
      status: 'pending',
    });

    // Polygon's relayer job has nothing to send; Base's sends it, on Base.
    expect(await relayOnce(relayingOn(polygon))).toEqual({ kind: 'idle' });
    const baseRelaying = relayingOn(base);
    const sent = await relayOnce(baseRelaying);
    if (sent.kind !== 'sent') throw new Error(`expected a transaction sent, not ${sent.kind}`);
    const receipt = await base.anvil.publicClient.waitForTransactionReceipt({ hash: sent.txHash as Hex });
    expect(receipt.status).toBe('success');
    expect(await relayOnce(baseRelaying)).toMatchObject({ kind: 'mined', id: stored!.id });
    expect(await usdcOf(base, deposit)).toBe(12_000_000n);
    expect(await usdcOf(base, customer.address)).toBe(0n);
    expect(await base.anvil.publicClient.getBalance({ address: customer.address })).toBe(0n);

    // Base's watcher records the transfer as any other: processing, then paid once final.
    const reader = chainReader(createRpcClient([base.anvil.rpcUrl]), {
      kind: 'confirmations',
      confirmations: BASE_CONFIRMATIONS,
    });
    const poll = () => pollChainOnce({ ledger: stores.ledger, chain: reader, clock, logger }, sourceWatch);
    await poll();
    const status = () => getPaymentStatus({ ...stores, clock }, merchant.id, payment.id);
    expect((await status()).state.status).toBe('processing');
    await base.anvil.testClient.mine({ blocks: BASE_CONFIRMATIONS });
    await poll();
    const paid = await status();
    expect(paid.state.status).toBe('paid');
    expect(paid.transfers).toMatchObject([
      { chainId: 8453, txHash: sent.txHash, amountBaseUnits: 12_000_000n, final: true },
    ]);
    // Nothing more is asked to be signed, on any network.
    expect(await get(`/pay/${payment.id}/gasless.json?chain=8453`)).toMatchObject({
      status: 200,
      body: { value: '0' },
    });
  });

  it('offers no gasless payment on a chain without a key, nor on a network the payment is not offered on', async () => {
    const payment = await newPayment('5');
    for (const path of ['gasless.json?chain=137', 'gasless.json'])
      expect(await get(`/pay/${payment.id}/${path}`)).toMatchObject({
        status: 409,
        body: { code: 'GASLESS_UNAVAILABLE' },
      });
    expect(await get(`/pay/${payment.id}/gasless.json?chain=42161`)).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR' },
    });
    expect(await get(`/pay/${payment.id}/gasless.json?chain=base`)).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR' },
    });
    // The service's networks say the same: Polygon has no gasless relayer, Base has.
    const [mode] = checkoutModeNetworks(resolvedChains(), []);
    expect(mode!.chains.map((c) => [c.chainId, c.gasless])).toEqual([
      [137, false],
      [8453, true],
    ]);
  });
});
