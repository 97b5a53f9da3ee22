/**
 * The payment page's network choice in a real browser (Chromium via playwright-core), on two real chains with
 * different chain ids — "Polygon" (137, the home chain) and "Base" (8453, a CCTP source) — each with its own
 * USDC and the V3 factory at the same address (test/helpers/cctpChains.ts), so the payment's one deposit address
 * exists on both (decision 0028). The test wallet (test/helpers/testWallet.ts) is injected on Base. What the
 * page offers and how the wallet button picks its chain is decision 0033. Every page opened here must log no
 * console error and throw nothing (checked after each test). Nothing asserts on time.
 */
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { type Address, getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { authorizationChain } from '../../src/adapters/chain/eip3009.ts';
import { predictDepositAddress } from '../../src/adapters/chain/forwarder.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import type { ModeNetworks, NetworkCandidate } from '../../src/adapters/checkout/paymentNetworks.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { marketRates } from '../../src/adapters/rates/marketRates.ts';
import { staticSource } from '../../src/adapters/rates/static.ts';
import { eip681TransferLink } from '../../src/adapters/web/eip681.ts';
import { qrSvg } from '../../src/adapters/web/qrCode.ts';
import { type RelayAuthorizationsDeps, relayOnce } from '../../src/app/gasless/relayAuthorizations.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { createPayment } from '../../src/app/payments/createPayment.ts';
import type { DepositPlanner } from '../../src/app/payments/ports.ts';
import type { Payment } from '../../src/domain/payment.ts';
import type { HomeChain } from '../../src/main/chains/model.ts';
import { checkoutGasless, checkoutModeNetworks } from '../../src/main/checkoutServices.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { createStores } from '../../src/main/wiring.ts';
import { sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import {
  accessibilityViolations,
  SCREENSHOTS,
  scrollsSideways,
  UI_TIMEOUT_MS,
  useChromium,
} from '../helpers/browser.ts';
import { type CctpChain, type CctpChains, CIRCLE, startCctpChains } from '../helpers/cctpChains.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { walletContext } from '../helpers/testWallet.ts';

// The callbacks given to page.evaluate run in the browser; the project's types have no DOM library.
declare const window: unknown;

/** anvil's account 3: the customer, who holds USDC on Base only. */
const CUSTOMER = 3;
const PRICE_BASE_UNITS = 27_000_000n;
/** anvil's account 5: the gasless relayer, on Base only (Polygon has no gasless key here). */
const GASLESS_RELAYER = 5;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;
let database: TestDatabase;
let checkout: FastifyInstance;
let checkoutUrl: string;
/** The same checkout wired as the service wires it (checkoutServices.ts), gasless on Base alone. */
let gaslessCheckout: FastifyInstance;
let gaslessCheckoutUrl: string;
let stores: ReturnType<typeof createStores>;
let relayingOnBase: RelayAuthorizationsDeps;
const chromium = useChromium();
let newPayment: () => Promise<Payment>;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6 },
    ],
    { confirmations: { fast: 1, standard: 3 }, fastFeeBps: 1 },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
  // The customer holds USDC on both chains (the same account on each: anvil's mnemonic).
  for (const chain of [polygon, base]) {
    const mint = await chain.anvil.wallet(CIRCLE).writeContract({
      address: chain.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [chain.anvil.addresses[CUSTOMER]!, 1_000n * 1_000_000n],
    });
    await chain.anvil.publicClient.waitForTransactionReceipt({ hash: mint });
  }

  database = await createTestDatabase('sqlite');
  stores = createStores(database.handle);
  const clock = new TestClock(new Date());
  const { logger } = capturingLogger();
  const { merchant } = await createMerchant(
    { merchants: stores.merchants, clock, webhookAllowPrivate: true },
    {
      name: 'Two Chain Shop',
      wallet: polygon.anvil.addresses[2]!,
      webhookUrl: 'http://127.0.0.1:9/hooks',
      commissionPercent: '2.5',
    },
  );
  const v3 = net.factories.polygon!;
  const treasury = getAddress(polygon.anvil.addresses[1]!);
  // Deposits planned on the V3 factory, as the API plans them once the mode has one (decision 0028).
  const deposits: DepositPlanner = {
    plan: ({ paymentId, merchantWallet, commissionBps }) => ({
      chainId: polygon.chainId,
      tokenAddress: polygon.cctp.usdc,
      factoryAddress: v3.factory,
      treasuryAddress: treasury,
      depositAddress: predictDepositAddress({
        factory: v3.factory,
        implementation: v3.implementation,
        params: { merchant: getAddress(merchantWallet), treasury, feeBps: commissionBps, paymentId },
      }),
    }),
    chainId: polygon.chainId,
    tokenAddress: polygon.cctp.usdc,
    contracts: [polygon.cctp.usdc, v3.factory, v3.implementation],
  };
  const rates = marketRates({
    sources: [staticSource({ EUR: '1.08' }, () => clock.now())],
    clock,
    cacheTtlMs: 60_000,
    maxAgeMs: 60_000,
    maxSpreadBps: 100,
    timeoutMs: 1_000,
    logger,
  });
  newPayment = () =>
    createPayment(
      {
        ...stores,
        deposits: { live: deposits },
        rates,
        clock,
        maxAmountBaseUnits: 10n ** 12n,
        minAmountBaseUnits: 1n,
        paymentTtlMs: 60 * 60_000,
        webhookAllowPrivate: true,
      },
      merchant,
      { amount: '27', currency: 'USDC' },
    );

  const candidate = (chain: CctpChain, name: string, role: 'home' | 'source'): NetworkCandidate => ({
    chainId: chain.chainId,
    name,
    role,
    usdcAddress: chain.cctp.usdc,
    publicRpcUrl: chain.anvil.rpcUrl,
    explorerUrl: '',
    nativeCurrencySymbol: role === 'home' ? 'POL' : 'ETH',
    gasless: false,
  });
  const mode: ModeNetworks = {
    chains: [candidate(polygon, 'Polygon', 'home'), candidate(base, 'Base', 'source')],
    v3FactoryAddress: v3.factory,
  };
  checkout = await buildCheckoutServer({
    ...stores,
    clock,
    logger,
    network: { name: 'Polygon', chainId: polygon.chainId, explorerUrl: '' },
    modeNetworks: [mode],
    pollIntervalMs: 200,
  });
  checkoutUrl = await checkout.listen({ host: '127.0.0.1', port: 0 });
  // The chains as resolveChains resolves them, with what the checkout reads: a gasless key on Base, none on Polygon.
  const chains = [
    {
      settings: { role: 'home' },
      target: {
        chainId: polygon.chainId,
        tokenAddress: polygon.cctp.usdc,
        factoryAddress: v3.factory,
        forwarderVersion: 3,
      },
      rpcUrls: [polygon.anvil.rpcUrl],
      gaslessRelayerKey: undefined,
      sources: [
        {
          settings: { role: 'source' },
          target: { chainId: base.chainId, tokenAddress: base.cctp.usdc, factoryAddress: v3.factory },
          rpcUrls: [base.anvil.rpcUrl],
          gaslessRelayerKey: sandboxPrivateKey(GASLESS_RELAYER),
        },
      ],
    },
  ] as unknown as HomeChain[];
  const views = [
    { name: 'Polygon', chainId: polygon.chainId, explorerUrl: '', publicRpcUrl: polygon.anvil.rpcUrl },
    { name: 'Base', chainId: base.chainId, explorerUrl: '', publicRpcUrl: base.anvil.rpcUrl },
  ];
  gaslessCheckout = await buildCheckoutServer({
    ...stores,
    clock,
    logger,
    network: views,
    modeNetworks: checkoutModeNetworks(chains, views),
    gasless: checkoutGasless(stores, chains, clock, logger, {
      buckets: memoryBucketStore(),
      minValueBaseUnits: 500_000n,
    }),
    pollIntervalMs: 200,
  });
  gaslessCheckoutUrl = await gaslessCheckout.listen({ host: '127.0.0.1', port: 0 });
  const baseClient = createRpcClient([base.anvil.rpcUrl]);
  const relayer = createRelayer({
    client: baseClient,
    chainId: base.chainId,
    relayerKey: sandboxPrivateKey(GASLESS_RELAYER),
  });
  relayingOnBase = {
    gasless: stores.gaslessAuthorizations,
    relayer,
    chain: authorizationChain(baseClient, base.chainId, relayer.address),
    payments: stores.payments,
    ledger: stores.ledger,
    clock,
    logger,
  };
});

afterAll(async () => {
  await checkout?.close();
  await gaslessCheckout?.close();
  await database?.drop();
  await net?.stop();
});

/**
 * A wallet holding the customer's account, starting on `startChainId`; it knows Base (and, `alsoPolygon`,
 * Polygon) and reaches that chain's node.
 */
const baseWallet = (startChainId: string, contextOptions = {}, alsoPolygon = false, privateKey?: Hex) =>
  walletContext(
    chromium.browser,
    {
      rpcUrl: base.anvil.rpcUrl,
      chainId: base.chainId,
      accounts: base.anvil.addresses,
      defaultAccountIndex: CUSTOMER,
      ...(alsoPolygon ? { otherChains: [{ chainId: polygon.chainId, rpcUrl: polygon.anvil.rpcUrl }] } : {}),
    },
    { startChainId, knowsChain: true, ...(privateKey ? { privateKey } : {}) },
    contextOptions,
  );

/** The chain ids the page asked the wallet to switch to, in order. */
const switchesAsked = (page: Page) =>
  page.evaluate(() =>
    (window as { __walletCalls: { method: string; params: unknown }[] }).__walletCalls
      .filter((c) => c.method === 'wallet_switchEthereumChain')
      .map((c) => (c.params as [{ chainId: string }])[0].chainId),
  );

async function open(
  context: BrowserContext,
  payment: Payment,
  query = '',
  origin = checkoutUrl,
): Promise<Page> {
  const page = await context.newPage();
  chromium.watch(page);
  const response = await page.goto(`${origin}/pay/${payment.id}${query}`);
  expect(response?.status()).toBe(200);
  await page.locator('section[data-stage="pay"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  return page;
}

const linkOn = (payment: Payment, chain: CctpChain) =>
  eip681TransferLink({
    tokenAddress: chain.cctp.usdc,
    chainId: chain.chainId,
    recipient: payment.deposit!.depositAddress,
    amountBaseUnits: PRICE_BASE_UNITS,
  });

function usdcBalance(chain: CctpChain, owner: string): Promise<bigint> {
  return chain.anvil.publicClient.readContract({
    address: chain.cctp.usdc,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner as Address],
  });
}

/** The wallet's calls by method name, in order. */
const walletMethods = (page: Page) =>
  page.evaluate(() => (window as { __walletCalls: { method: string }[] }).__walletCalls.map((c) => c.method));

/** The transfer the wallet button sent, once the page says so, mined on `chain`. */
async function sentOn(page: Page, chain: CctpChain): Promise<void> {
  const sent = page.locator('[data-wallet-message="sent"]');
  await sent.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  const hash = (await sent.locator('[data-field="wallet-tx"]').textContent()) as Hex;
  const receipt = await chain.anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
}

const radio = (page: Page, name: string) => page.getByRole('radio', { name });

describe('checkout networks in Chromium', () => {
  it('offers both networks, each with its link and QR code, names them in the warning, at both widths', async () => {
    const payment = await newPayment();
    const context = await baseWallet(`0x${base.chainId.toString(16)}`, {
      viewport: { width: 1280, height: 900 },
    });
    try {
      const page = await open(context, payment);
      // Polygon first and chosen; its request and QR code shown.
      expect(await page.getByRole('group', { name: 'Network to pay on' }).isVisible()).toBe(true);
      expect(await radio(page, 'Polygon').isChecked()).toBe(true);
      expect(await radio(page, 'Base').isChecked()).toBe(false);
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toBe(linkOn(payment, polygon));
      expect(await page.locator('section[data-stage="pay"] .warning p').first().textContent()).toBe(
        'Send USDC on Polygon or Base only',
      );
      // The links are for pages without the script: here the choice changes the page in place.
      expect(await page.getByRole('link', { name: 'Base' }).isVisible()).toBe(false);

      // Keyboard: the radios take the arrow keys, and the page follows the choice.
      await radio(page, 'Polygon').focus();
      await page.keyboard.press('ArrowRight');
      expect(await radio(page, 'Base').isChecked()).toBe(true);
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toBe(linkOn(payment, base));
      expect(await page.locator('#token-address').textContent()).toBe(base.cctp.usdc);
      expect(await page.locator('[data-network-label]').textContent()).toBe('Base · chain ID 8453');
      // The same address, whatever the network.
      expect(await page.locator('#deposit-address').textContent()).toBe(payment.deposit!.depositAddress);
      const qr = page.locator('img[data-qr]');
      const qrSrc = (await qr.getAttribute('src'))!;
      expect(qrSrc).toBe(`/pay/${payment.id}/qr.svg?chain=8453&amount=${PRICE_BASE_UNITS}`);
      expect(await qr.getAttribute('alt')).toContain('on Base');
      expect(await (await page.request.get(new URL(qrSrc, checkoutUrl).toString())).text()).toBe(
        await qrSvg(linkOn(payment, base)),
      );
      // The live status keeps the chosen network's request, never the home one: after two more answers, still Base's.
      for (let i = 0; i < 2; i++)
        await page.waitForResponse((r) => r.url().includes('/status.json'), { timeout: UI_TIMEOUT_MS });
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toBe(linkOn(payment, base));

      await radio(page, 'Polygon').check();
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toBe(linkOn(payment, polygon));
      expect(await qr.getAttribute('src')).toBe(
        `/pay/${payment.id}/qr.svg?chain=137&amount=${PRICE_BASE_UNITS}`,
      );

      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        expect(await accessibilityViolations(page)).toEqual([]);
        expect(await scrollsSideways(page)).toBe(false);
        await page.screenshot({ path: `${SCREENSHOTS}/checkout-networks-${width}.png`, fullPage: true });
      }
    } finally {
      await context.close();
    }
  });

  it('without JavaScript, shows each network on its own page through links', async () => {
    const payment = await newPayment();
    const context = await chromium.browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
    try {
      const page = await context.newPage();
      await page.goto(`${checkoutUrl}/pay/${payment.id}`);
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toBe(linkOn(payment, polygon));
      // The radios need the script: they stay hidden rather than doing nothing.
      expect(await radio(page, 'Base').isVisible()).toBe(false);
      const choice = page.getByRole('navigation', { name: 'Network to pay on' });
      expect(await choice.getByRole('link', { name: 'Polygon' }).getAttribute('aria-current')).toBe('true');
      await choice.getByRole('link', { name: 'Base' }).click();
      await page.waitForURL(/network=8453/);
      expect(await choice.getByRole('link', { name: 'Base' }).getAttribute('aria-current')).toBe('true');
      expect(await page.locator('section[data-stage="pay"] .warning p').first().textContent()).toBe(
        'Send USDC on Polygon or Base only',
      );
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toBe(linkOn(payment, base));
      expect(await page.locator('img[data-qr]').getAttribute('src')).toBe(
        `/pay/${payment.id}/qr.svg?chain=8453&amount=${PRICE_BASE_UNITS}`,
      );
      expect(await page.locator('#token-address').textContent()).toBe(base.cctp.usdc);
      await page.screenshot({ path: `${SCREENSHOTS}/checkout-networks-no-javascript.png`, fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('pays on the chain the wallet is on when it is offered: no switch, the same deposit address', async () => {
    const payment = await newPayment();
    const deposit = payment.deposit!.depositAddress;
    const context = await baseWallet(`0x${base.chainId.toString(16)}`);
    try {
      const page = await open(context, payment);
      // The page shows Polygon, the default; the wallet is on Base, which this payment is offered on.
      expect(await radio(page, 'Polygon').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await sentOn(page, base);
      expect(await usdcBalance(base, deposit)).toBe(PRICE_BASE_UNITS);
      expect(await usdcBalance(polygon, deposit)).toBe(0n);
      const methods = await walletMethods(page);
      expect(methods).toContain('eth_sendTransaction');
      expect(methods).not.toContain('wallet_switchEthereumChain');
      expect(methods).not.toContain('wallet_addEthereumChain');
      // The page now shows the network the payment went on.
      expect(await radio(page, 'Base').isChecked()).toBe(true);
      expect(await page.locator('#token-address').textContent()).toBe(base.cctp.usdc);
    } finally {
      await context.close();
    }
  });

  it('asks a wallet on a chain not offered to switch to the network the customer chose, then pays there', async () => {
    const payment = await newPayment();
    const deposit = payment.deposit!.depositAddress;
    const context = await baseWallet('0x1');
    try {
      const page = await open(context, payment);
      await radio(page, 'Base').check();
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await sentOn(page, base);
      expect(await usdcBalance(base, deposit)).toBe(PRICE_BASE_UNITS);
      expect(await switchesAsked(page)).toEqual(['0x2105']);
    } finally {
      await context.close();
    }
  });

  it('switches a wallet on an offered chain only when the customer chose another network, and pays there', async () => {
    const payment = await newPayment();
    const deposit = payment.deposit!.depositAddress;
    // On Base, which is offered: had the customer chosen nothing, the wallet would pay there (the test above).
    const context = await baseWallet(`0x${base.chainId.toString(16)}`, {}, true);
    try {
      const page = await open(context, payment);
      await radio(page, 'Base').check();
      await radio(page, 'Polygon').check();
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await sentOn(page, polygon);
      expect(await switchesAsked(page)).toEqual(['0x89']);
      expect(await usdcBalance(polygon, deposit)).toBe(PRICE_BASE_UNITS);
      expect(await usdcBalance(base, deposit)).toBe(0n);
      expect(await radio(page, 'Polygon').isChecked()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('pays gasless on Base, whose relayer has a key: the wallet signs over Base’s USDC, Base’s relayer sends it', async () => {
    const payment = await newPayment();
    const deposit = payment.deposit!.depositAddress;
    // A customer with 27 USDC on Base and not one wei of gas.
    const key = generatePrivateKey();
    const customer = privateKeyToAccount(key);
    const minted = await base.anvil.wallet(CIRCLE).writeContract({
      address: base.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [customer.address, PRICE_BASE_UNITS],
    });
    await base.anvil.publicClient.waitForTransactionReceipt({ hash: minted });
    expect(await base.anvil.publicClient.getBalance({ address: customer.address })).toBe(0n);

    const context = await baseWallet(`0x${base.chainId.toString(16)}`, {}, false, key);
    try {
      const page = await open(context, payment, '', gaslessCheckoutUrl);
      const hint = page.locator('[data-gasless-hint]');
      // Base's relayer has a key: "no network fee" once the page knows it. Polygon, chosen by default, has none.
      await radio(page, 'Base').check();
      await hint.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await radio(page, 'Polygon').check();
      expect(await hint.isVisible()).toBe(false);
      await radio(page, 'Base').check();
      expect(await hint.isVisible()).toBe(true);

      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page
        .locator('[data-wallet-message="signed"]')
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const methods = await walletMethods(page);
      expect(methods).not.toContain('eth_sendTransaction');
      expect(methods).not.toContain('wallet_switchEthereumChain');
      const calls = await page.evaluate(
        () => (window as { __walletCalls: { method: string; params: unknown }[] }).__walletCalls,
      );
      const typedData = JSON.parse((calls.at(-1)!.params as [string, string])[1]);
      expect(typedData.domain).toMatchObject({ chainId: base.chainId, verifyingContract: base.cctp.usdc });
      const [stored] = await stores.gaslessAuthorizations.listForPayment(payment.id);
      expect(stored).toMatchObject({
        chainId: base.chainId,
        tokenAddress: base.cctp.usdc.toLowerCase(),
        status: 'pending',
      });

      const sent = await relayOnce(relayingOnBase);
      if (sent.kind !== 'sent') throw new Error(`expected a transaction sent, not ${sent.kind}`);
      await base.anvil.publicClient.waitForTransactionReceipt({ hash: sent.txHash as Hex });
      expect(await relayOnce(relayingOnBase)).toMatchObject({ kind: 'mined', id: stored!.id });
      expect(await usdcBalance(base, deposit)).toBe(PRICE_BASE_UNITS);
      expect(await usdcBalance(base, customer.address)).toBe(0n);
    } finally {
      await context.close();
    }
  });
});
