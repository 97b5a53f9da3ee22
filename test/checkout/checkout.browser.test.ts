/**
 * The checkout page in a real browser (Debian's Chromium driven by playwright-core), served by the real
 * checkout server on a real port, for payments on a real chain (anvil) recorded by the real chain watcher.
 * A test wallet is injected as an EIP-1193 provider backed by an anvil account (anvil's accounts are unlocked,
 * so eth_sendTransaction goes straight to the node), or several announced through EIP-6963. Screenshots of every
 * state land in test-results/checkout-<name>.png. A wallet may also hold a key of its own (a customer with USDC and
 * no gas at all): it signs typed data outside the page, and the gasless checkout's relayer sends the transfer. Every page opened here must log no console error and throw
 * nothing (checked after each test).
 *
 * Nothing here asserts on time: each step waits for the page to show a state, within generous limits.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { type Address, parseEventLogs } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { authorizationChain } from '../../src/adapters/chain/eip3009.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { gaslessRepository } from '../../src/adapters/db/gaslessRepository.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { eip681TransferLink } from '../../src/adapters/web/eip681.ts';
import { qrSvg } from '../../src/adapters/web/qrCode.ts';
import { acceptAuthorization, gaslessAmountDue } from '../../src/app/gasless/acceptAuthorization.ts';
import type { GaslessStore } from '../../src/app/gasless/ports.ts';
import { type RelayAuthorizationsDeps, relayOnce } from '../../src/app/gasless/relayAuthorizations.ts';
import { createPayment } from '../../src/app/payments/createPayment.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { accessibilityViolations, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { type ChainHarness, PAYMENT_TTL_MS, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import {
  walletContext as openWalletContext,
  WALLET_ICON,
  type WalletChain,
  type WalletOptions,
} from '../helpers/testWallet.ts';

// The callbacks given to page.evaluate run in the browser. The project compiles as Node code, without the DOM
// library, so the few browser globals they touch are declared here, for this module only.
declare const window: unknown;
declare const document: {
  title: string;
  documentElement: { scrollWidth: number };
  activeElement: { textContent: string | null } | null;
};
declare const navigator: { clipboard: { readText(): Promise<string> } };

const RETURN_URL = 'https://shop.example.test/orders/42/thanks';
const CANCEL_URL = 'https://shop.example.test/orders/42/cart';
/** Anvil's account 3 holds no USDC. */
const EMPTY_ACCOUNT = 3;
/** Anvil account 5: the gasless relayer's own key, as in the gasless tests. */
const GASLESS_RELAYER = 5;

let h: ChainHarness;
let checkout: FastifyInstance;
let checkoutUrl: string;
/** The same checkout, for a network with a block explorer (links on each transfer). */
let explorerCheckout: FastifyInstance;
let explorerCheckoutUrl: string;
/** The same checkout offering gasless payment (EIP-3009), with the store and the relayer behind it. */
let gaslessCheckout: FastifyInstance;
let gaslessCheckoutUrl: string;
let gaslessStore: GaslessStore;
let relaying: RelayAuthorizationsDeps;
const chromium = useChromium();
let newPayment: (amount: string, currency?: string, cancelUrl?: string) => Promise<Payment>;

beforeAll(async () => {
  h = await startChainHarness('sqlite');
  const { logger } = capturingLogger();
  // The harness's own deposit planner and rates, so the payment can carry a return URL too.
  const { deposits, rates } = h;
  newPayment = (amount, currency = 'USDC', cancelUrl = undefined) =>
    createPayment(
      {
        ...h.stores,
        deposits: { live: deposits },
        rates,
        clock: h.clock,
        maxAmountBaseUnits: 10n ** 12n,
        // No minimum to speak of: amounts here are whatever the test needs (the minimum: test/payments/merchantApi.test.ts).
        minAmountBaseUnits: 1n,
        paymentTtlMs: PAYMENT_TTL_MS,
        webhookAllowPrivate: true,
      },
      h.merchant,
      {
        amount,
        currency,
        returnUrl: RETURN_URL,
        cancelUrl,
        customerEmail: 'customer@example.com',
        orderId: 'o-1',
      },
    );

  checkout = await buildCheckoutServer({
    ...h.stores,
    clock: h.clock,
    logger,
    network: {
      name: 'Sandbox (local anvil)',
      chainId: h.anvil.chain.id,
      explorerUrl: '',
      publicRpcUrl: h.anvil.rpcUrl,
      nativeCurrencySymbol: 'ETH',
    },
    // Fast polling keeps the suite short; the page works the same at the default 3 s.
    pollIntervalMs: 200,
  });
  checkoutUrl = await checkout.listen({ host: '127.0.0.1', port: 0 });
  explorerCheckout = await buildCheckoutServer({
    ...h.stores,
    clock: h.clock,
    logger,
    network: { name: 'Polygon', chainId: h.anvil.chain.id, explorerUrl: 'https://polygonscan.com' },
    pollIntervalMs: 200,
  });
  explorerCheckoutUrl = await explorerCheckout.listen({ host: '127.0.0.1', port: 0 });

  const chain = authorizationChain(
    h.anvil.publicClient,
    h.anvil.chain.id,
    h.anvil.addresses[GASLESS_RELAYER]!,
  );
  gaslessStore = gaslessRepository(h.database.handle);
  const gaslessDeps = () => ({
    payments: h.stores.payments,
    ledger: h.stores.ledger,
    gasless: gaslessStore,
    chains: [chain],
    clock: h.clock,
    minValueBaseUnits: 500_000n,
  });
  gaslessCheckout = await buildCheckoutServer({
    ...h.stores,
    clock: h.clock,
    logger,
    network: {
      name: 'Sandbox (local anvil)',
      chainId: h.anvil.chain.id,
      explorerUrl: '',
      publicRpcUrl: h.anvil.rpcUrl,
      nativeCurrencySymbol: 'ETH',
    },
    pollIntervalMs: 200,
    gasless: {
      domainFor: async (chainId, token) => (chainId === chain.chainId ? chain.domainOf(token) : undefined),
      accept: (input) => acceptAuthorization(gaslessDeps(), input),
      amountDue: (payment) => gaslessAmountDue(gaslessDeps(), payment),
      buckets: memoryBucketStore(),
    },
  });
  gaslessCheckoutUrl = await gaslessCheckout.listen({ host: '127.0.0.1', port: 0 });
  relaying = {
    gasless: gaslessStore,
    chain,
    relayer: createRelayer({
      client: createRpcClient([h.anvil.rpcUrl]),
      chainId: h.anvil.chain.id,
      relayerKey: sandboxPrivateKey(GASLESS_RELAYER),
    }),
    payments: h.stores.payments,
    ledger: h.stores.ledger,
    clock: h.clock,
    logger,
  };
});

afterAll(async () => {
  await gaslessCheckout?.close();
  await explorerCheckout?.close();
  await checkout?.close();
  await h?.close();
});

/** The harness's chain, as the test wallet sees it. */
const walletChain = (): WalletChain => ({
  rpcUrl: h.anvil.rpcUrl,
  chainId: h.anvil.chain.id,
  accounts: h.anvil.addresses,
  defaultAccountIndex: ROLES.customer,
});

const walletContext = (options: WalletOptions = {}, contextOptions = {}) =>
  openWalletContext(chromium.browser, walletChain(), options, contextOptions);

const payUrl = (payment: Payment, base = checkoutUrl) => `${base}/pay/${payment.id}`;

async function open(context: BrowserContext, payment: Payment, base = checkoutUrl): Promise<Page> {
  const page = chromium.watch(await context.newPage());
  const response = await page.goto(payUrl(payment, base));
  expect(response?.status()).toBe(200);
  // A marker that a reload would wipe: the page must reach its later states without one.
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });
  return page;
}

async function waitForStage(page: Page, stage: string): Promise<void> {
  await page.locator(`section[data-stage="${stage}"]`).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  expect(await page.locator('section[data-stage]:visible').count()).toBe(1);
}

async function stillSameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({
    path: `${SCREENSHOTS}/checkout-${name}.png`,
    fullPage: true,
    animations: 'disabled',
  });
}

describe('checkout in Chromium', () => {
  it('shows the right amounts, address, network and QR link, readable without JavaScript too', async () => {
    const payment = await newPayment('25', 'EUR');
    const deposit = payment.deposit!;
    const link = eip681TransferLink({
      tokenAddress: h.usdc,
      chainId: 31337,
      recipient: deposit.depositAddress,
      amountBaseUnits: 27_000_000n,
    });

    const context = await walletContext();
    try {
      const page = await open(context, payment);
      await waitForStage(page, 'pay');
      expect(await page.locator('h1').textContent()).toBe('Chain Shop');
      expect(await page.locator('.price strong').textContent()).toBe('25.00 EUR');
      // The rate and its lock until the expiry, in the browser's zone (UTC here), and the exchange fee up front.
      const until = payment.expiresAt.toISOString().slice(11, 16);
      expect(await page.locator('[data-rate]').textContent()).toBe(
        `25.00 EUR = 27.00 USDC at 1.08 EUR/USDC, until ${until} UTC`,
      );
      expect(await page.locator('.fee').textContent()).toMatch(
        /deducts its withdrawal fee from what arrives: send the amount shown plus any fee/,
      );
      // Desktop: the QR first, the wallet link below it, no "Show QR code" toggle.
      expect(await page.getByText('Show QR code').isVisible()).toBe(false);
      const qrBox = await page.locator('img[data-qr]').boundingBox();
      const linkBox = await page.locator('[data-payment-link]').boundingBox();
      expect(qrBox!.y).toBeLessThan(linkBox!.y);
      expect(await page.locator('#amount').textContent()).toBe('27.00');
      expect(await page.locator('#deposit-address').textContent()).toBe(deposit.depositAddress);
      expect(await page.locator('#token-address').textContent()).toBe(h.usdc);
      expect(await page.getByText('Sandbox (local anvil) · chain ID 31337', { exact: true }).count()).toBe(1);
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toBe(link);
      // The QR image is drawn, and it is the code of exactly that link.
      const qr = page.locator('img[data-qr]');
      expect(
        await qr.evaluate((img) => {
          const image = img as unknown as { complete: boolean; naturalWidth: number };
          return image.complete && image.naturalWidth > 0;
        }),
      ).toBe(true);
      const qrResponse = await page.request.get(
        new URL((await qr.getAttribute('src'))!, checkoutUrl).toString(),
      );
      expect(await qrResponse.text()).toBe(await qrSvg(link));
      expect(await page.getByRole('button', { name: 'Pay with browser wallet' }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Copy the deposit address' }).isVisible()).toBe(true);
      expect(await page.locator('[data-countdown]').textContent()).toMatch(/^(1:00:00|59:\d\d)$/);
      await screenshot(page, 'waiting');

      // The copy button puts the exact address on the clipboard.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: checkoutUrl });
      await page.getByRole('button', { name: 'Copy the deposit address' }).click();
      await page.getByRole('button', { name: 'Copy the deposit address' }).getByText('Copied').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(deposit.depositAddress);

      // Keyboard: Tab reaches the copy buttons and the wallet button, with a visible focus ring.
      const focused: string[] = [];
      await page.locator('body').focus();
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('Tab');
        focused.push(await page.evaluate(() => document.activeElement?.textContent?.trim() ?? ''));
      }
      expect(focused).toEqual(expect.arrayContaining(['Copy', 'Pay with browser wallet']));
    } finally {
      await context.close();
    }

    const noScript = await chromium.browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
    try {
      const page = await noScript.newPage();
      await page.goto(payUrl(payment));
      expect(await page.locator('#amount').textContent()).toBe('27.00');
      expect(await page.locator('#deposit-address').textContent()).toBe(deposit.depositAddress);
      expect(
        await page.getByText('Sandbox (local anvil) · chain ID 31337', { exact: true }).isVisible(),
      ).toBe(true);
      expect(await page.locator('img[data-qr]').isVisible()).toBe(true);
      // Controls that need the script stay hidden rather than doing nothing.
      expect(await page.getByRole('button', { name: 'Pay with browser wallet' }).isVisible()).toBe(false);
      // (Playwright's getByText skips <noscript>, so this one is found by its class.)
      const notice = page.locator('section[data-stage="pay"] .notice', { hasText: 'JavaScript is off' });
      expect(await notice.isVisible()).toBe(true);
      await screenshot(page, 'no-javascript');
    } finally {
      await noScript.close();
    }
  });

  it('leads with the amount and the one-tap wallet button, the QR and addresses after them, on a phone and a desktop', async () => {
    for (const width of [390, 1280]) {
      const payment = await newPayment('25', 'EUR');
      const phone = width === 390 ? { isMobile: true, hasTouch: true } : {};
      const context = await walletContext({}, { viewport: { width, height: 844 }, ...phone });
      try {
        const page = await open(context, payment);
        await waitForStage(page, 'pay');
        const wallet = page.getByRole('button', { name: 'Pay with browser wallet' });
        await wallet.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
        const top = async (selector: string) => (await page.locator(selector).first().boundingBox())!.y;
        const walletTop = (await wallet.boundingBox())!.y;
        expect(await top('#amount')).toBeLessThan(walletTop);
        for (const later of ['.qr', '[data-payment-link]', '#deposit-address', '#token-address']) {
          expect(await top(later), `${later} at ${width} px`).toBeGreaterThan(walletTop);
        }
        expect(await accessibilityViolations(page)).toEqual([]);
        await screenshot(page, `wallet-first-${width}`);
      } finally {
        await context.close();
      }
    }
  });

  it('shows the way back to the shop from the first second while pending, and leaving cancels nothing', async () => {
    const payment = await newPayment('25', 'EUR', CANCEL_URL);
    const context = await walletContext();
    try {
      const page = await open(context, payment);
      await waitForStage(page, 'pay');
      const back = page
        .locator('section[data-stage="pay"]')
        .getByRole('link', { name: 'Back to Chain Shop' });
      const cancelUrl = `${CANCEL_URL}?payment_id=${payment.id}`;
      expect(await back.isVisible()).toBe(true);
      expect(await back.getAttribute('href')).toBe(cancelUrl);
      expect(await page.locator('section[data-stage="pay"] [data-leave]').textContent()).toContain(
        'Leaving this page cancels nothing: a transfer you have already sent still counts.',
      );
      expect(await accessibilityViolations(page)).toEqual([]);

      // The transfer is on its way (seen, not final): the way back is still there, and the customer takes it.
      await h.pay(payment.deposit!.depositAddress, 27_000_000n);
      await h.poll();
      await waitForStage(page, 'confirming');
      const stillBack = page
        .locator('section[data-stage="confirming"]')
        .getByRole('link', { name: 'Back to Chain Shop' });
      expect(await stillBack.getAttribute('href')).toBe(cancelUrl);
      await screenshot(page, 'confirming-back-to-shop');
      await page.route(cancelUrl, (route) =>
        route.fulfill({ contentType: 'text/html', body: '<title>cart</title><p>Your cart</p>' }),
      );
      await stillBack.click();
      await page.waitForURL(cancelUrl, { timeout: UI_TIMEOUT_MS });

      // The transfer that was on its way still counts: the payment is paid once it is final.
      await h.finalizeAll();
      await h.poll();
      expect((await h.status(payment.id)).payment.status).toBe('paid');
    } finally {
      await context.close();
    }
  });

  it('pays through the browser wallet button and reaches the success screen without reload', async () => {
    const payment = await newPayment('25', 'EUR');
    const deposit = payment.deposit!;
    // The wallet starts on chain 1 and does not know anvil: the page must add the chain, then pay.
    const context = await walletContext({ startChainId: '0x1', knowsChain: false });
    try {
      const page = await open(context, payment);
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      const sent = page.locator('[data-wallet-message="sent"]');
      await sent.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const hash = (await page.locator('[data-field="wallet-tx"]').textContent()) as `0x${string}`;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await page.getByRole('button', { name: 'Pay with browser wallet' }).isDisabled()).toBe(true);

      // What the page asked of the wallet: accounts, a switch refused as unknown, an add, then the transfer.
      const calls = await page.evaluate(
        () => (window as unknown as { __walletCalls: { method: string; params: unknown }[] }).__walletCalls,
      );
      const methods = calls.map((c) => c.method);
      expect(methods.slice(0, 4)).toEqual([
        'eth_requestAccounts',
        'eth_chainId',
        'wallet_switchEthereumChain',
        'wallet_addEthereumChain',
      ]);
      expect(calls[3]!.params).toEqual([
        {
          chainId: '0x7a69',
          chainName: 'Sandbox (local anvil)',
          nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
          rpcUrls: [h.anvil.rpcUrl],
        },
      ]);
      expect(methods).toContain('eth_call'); // the balance check before sending
      expect(methods.at(-1)).toBe('eth_sendTransaction');

      // On chain: exactly the amount, from the customer, to the deposit address, in USDC.
      const receipt = await h.anvil.publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      const transfers = parseEventLogs({ abi: testUsdcAbi, eventName: 'Transfer', logs: receipt.logs });
      expect(transfers.map((log) => ({ token: log.address.toLowerCase(), ...log.args }))).toEqual([
        {
          token: h.usdc.toLowerCase(),
          from: h.addresses.customer,
          to: deposit.depositAddress as Address,
          value: 27_000_000n,
        },
      ]);

      // The chain watcher sees it: processing (not final yet) → the page shows "confirming".
      await h.poll();
      await waitForStage(page, 'confirming');
      expect(await page.locator('section[data-stage="confirming"] [data-t="txid"]').textContent()).toBe(hash);
      await screenshot(page, 'confirming');

      // Final → paid: the success screen, its transaction and the merchant's return link, same document.
      await h.finalizeAll();
      await h.poll();
      await waitForStage(page, 'paid');
      const paid = page.locator('section[data-stage="paid"]');
      expect(await paid.locator('h2').textContent()).toBe('Payment complete');
      // The price in the currency it was set in, the USDC beside it (issue 38: a donation showed USDC alone).
      expect(await paid.locator('p', { hasText: 'has received your payment' }).textContent()).toBe(
        'Chain Shop has received your payment of 25.00 EUR (27.00 USDC). Thank you!',
      );
      expect(await paid.locator('[data-t="txid"]').allTextContents()).toEqual([hash]);
      expect(await paid.locator('[data-field="received"]').first().textContent()).toBe('27.00');
      expect(await paid.getByRole('link', { name: 'Return to Chain Shop' }).getAttribute('href')).toBe(
        RETURN_URL,
      );
      expect(await page.locator('[data-live]').textContent()).toBe('Payment complete');
      expect(await stillSameDocument(page)).toBe(true);
      await screenshot(page, 'paid');
    } finally {
      await context.close();
    }
  });

  it('lists every wallet announced through EIP-6963 and pays with the one chosen', async () => {
    const payment = await newPayment('25', 'EUR');
    // The first wallet holds no USDC: paying with it would stop at the balance check.
    const context = await walletContext({
      knowsChain: true,
      announce: [
        { name: 'Empty Wallet', accountIndex: EMPTY_ACCOUNT },
        { name: 'Funded Wallet', accountIndex: ROLES.customer },
      ],
    });
    try {
      const page = await open(context, payment);
      const chooser = page.getByRole('group', { name: 'Choose the wallet to pay with' });
      await chooser.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      // One button per wallet, named and with its icon; the single button is gone.
      expect(await chooser.getByRole('button').allTextContents()).toEqual([
        'Pay with Empty Wallet',
        'Pay with Funded Wallet',
      ]);
      expect(await page.getByRole('button', { name: 'Pay with browser wallet' }).isVisible()).toBe(false);
      const icons = chooser.locator('img');
      expect(await icons.count()).toBe(2);
      for (const icon of await icons.all()) {
        expect(await icon.getAttribute('src')).toBe(WALLET_ICON);
        expect(
          await icon.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        ).toBeGreaterThan(0);
      }
      await screenshot(page, 'wallet-chooser');

      await chooser.getByRole('button', { name: 'Pay with Funded Wallet' }).click();
      await page
        .locator('[data-wallet-message="sent"]')
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const calls = await page.evaluate(
        () =>
          (window as unknown as { __walletCallsBy: Record<string, { method: string }[]> }).__walletCallsBy,
      );
      expect(calls['Empty Wallet']).toEqual([]);
      expect(calls['Funded Wallet']!.map((c) => c.method).at(-1)).toBe('eth_sendTransaction');
      // While it is on its way, neither wallet can send it twice.
      for (const button of await chooser.getByRole('button').all())
        expect(await button.isDisabled()).toBe(true);
      await h.poll();
      await waitForStage(page, 'confirming');
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(27_000_000n);
    } finally {
      await context.close();
    }
  });

  it('pays without gas: the wallet signs, the relayer sends it, and the page reaches paid by itself', async () => {
    const payment = await newPayment('25', 'EUR'); // 27.00 USDC
    const deposit = payment.deposit!;
    // A customer who bought USDC on an exchange: 27 USDC, not one wei of gas.
    const key = generatePrivateKey();
    const customer = privateKeyToAccount(key);
    const minted = await h.anvil.wallet(ROLES.relayer).writeContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [customer.address, 27_000_000n],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: minted });
    expect(await h.anvil.publicClient.getBalance({ address: customer.address })).toBe(0n);

    const context = await walletContext({ privateKey: key, knowsChain: true });
    try {
      const page = await open(context, payment, gaslessCheckoutUrl);
      // Before anything is asked: no network fee, and the transfer with gas one click away.
      const hint = page.locator('[data-gasless-hint]');
      await hint.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      expect(await hint.textContent()).toBe(
        'No network fee: your wallet only signs the transfer, and we send it for you.',
      );
      const withGas = page.getByRole('button', {
        name: 'Pay with a normal transfer instead (you pay the network fee)',
      });
      expect(await withGas.isVisible()).toBe(true);

      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      const signed = page.locator('[data-wallet-message="signed"]');
      await signed.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      expect(await signed.textContent()).toBe(
        'Signed — your payment is on its way, with no network fee for you. This page updates when it arrives.',
      );
      expect(await page.locator('[data-wallet-message]:visible').count()).toBe(1);
      // Neither way of paying can be used twice while it is on its way.
      expect(await page.getByRole('button', { name: 'Pay with browser wallet' }).isDisabled()).toBe(true);
      expect(await withGas.isDisabled()).toBe(true);

      // What the page asked of the wallet: the balance, then one signature, and no transaction at all.
      const calls = await page.evaluate(
        () => (window as unknown as { __walletCalls: { method: string; params: unknown }[] }).__walletCalls,
      );
      const methods = calls.map((c) => c.method);
      expect(methods).toContain('eth_call');
      expect(methods).not.toContain('eth_sendTransaction');
      expect(methods.at(-1)).toBe('eth_signTypedData_v4');
      const [signer, json] = calls.at(-1)!.params as [string, string];
      expect(signer).toBe(customer.address);
      const typedData = JSON.parse(json);
      expect(typedData).toEqual({
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
          TransferWithAuthorization: [
            { name: 'from', type: 'address' },
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' },
            { name: 'validBefore', type: 'uint256' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        domain: {
          name: expect.any(String),
          version: expect.any(String),
          chainId: h.anvil.chain.id,
          verifyingContract: h.usdc,
        },
        primaryType: 'TransferWithAuthorization',
        message: {
          from: customer.address,
          to: deposit.depositAddress,
          value: '27000000',
          validAfter: '0',
          validBefore: String(Math.ceil(payment.expiresAt.getTime() / 1000)),
          nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        },
      });
      const [stored] = await gaslessStore.listForPayment(payment.id);
      expect(stored).toMatchObject({
        status: 'pending',
        from: customer.address.toLowerCase(),
        valueBaseUnits: 27_000_000n,
        nonce: typedData.message.nonce,
      });
      await screenshot(page, 'gasless-signed');

      // The worker relays it with its own key; the watcher sees the transfer; the page follows by itself.
      const sent = await relayOnce(relaying);
      expect(sent).toMatchObject({ kind: 'sent', id: stored!.id });
      if (sent.kind !== 'sent') throw new Error('not sent');
      // Mined before the pass that records it (the broadcast's answer can come before the block).
      await h.anvil.publicClient.waitForTransactionReceipt({ hash: sent.txHash as `0x${string}` });
      expect(await relayOnce(relaying)).toMatchObject({ kind: 'mined', id: stored!.id });
      const [mined] = await gaslessStore.listForPayment(payment.id);
      await h.poll();
      await waitForStage(page, 'confirming');
      await h.finalizeAll();
      await h.poll();
      await waitForStage(page, 'paid');
      const paid = page.locator('section[data-stage="paid"]');
      expect(await paid.locator('h2').textContent()).toBe('Payment complete');
      expect(await paid.locator('[data-t="txid"]').allTextContents()).toEqual([mined!.txHash]);
      expect(await paid.locator('[data-field="received"]').first().textContent()).toBe('27.00');
      expect(await stillSameDocument(page)).toBe(true);
      await screenshot(page, 'gasless-paid');

      expect(await h.balanceOf(deposit.depositAddress)).toBe(27_000_000n);
      expect(await h.balanceOf(customer.address)).toBe(0n);
      expect(await h.anvil.publicClient.getBalance({ address: customer.address })).toBe(0n);
    } finally {
      await context.close();
    }
  });

  it('says so when the customer rejects the signature, and nothing is stored or sent', async () => {
    const payment = await newPayment('12.5');
    const context = await walletContext({ knowsChain: true, reject: ['eth_signTypedData_v4'] });
    try {
      const page = await open(context, payment, gaslessCheckoutUrl);
      await page.locator('[data-gasless-hint]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      const rejected = page.locator('[data-wallet-message="rejected"]');
      await rejected.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      expect(await rejected.textContent()).toBe('The request was rejected in your wallet. Nothing was sent.');
      // Both ways stay open: sign again, or the normal transfer.
      expect(await page.getByRole('button', { name: 'Pay with browser wallet' }).isEnabled()).toBe(true);
      expect(await page.locator('[data-pay-with-gas] button').isEnabled()).toBe(true);
      expect(await gaslessStore.listForPayment(payment.id)).toEqual([]);
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
    } finally {
      await context.close();
    }
  });

  it('pays with a normal transfer when the customer chooses it on a gasless checkout', async () => {
    const payment = await newPayment('12.5');
    const context = await walletContext({ knowsChain: true });
    try {
      const page = await open(context, payment, gaslessCheckoutUrl);
      const withGas = page.getByRole('button', {
        name: 'Pay with a normal transfer instead (you pay the network fee)',
      });
      await withGas.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await withGas.click();
      await page
        .locator('[data-wallet-message="sent"]')
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const methods = await page.evaluate(() =>
        (window as unknown as { __walletCalls: { method: string }[] }).__walletCalls.map((c) => c.method),
      );
      expect(methods).not.toContain('eth_signTypedData_v4');
      expect(methods.at(-1)).toBe('eth_sendTransaction');
      // Chosen once, it stays chosen: the offer of a signature is gone.
      expect(await page.locator('[data-gasless-hint]').isVisible()).toBe(false);
      expect(await gaslessStore.listForPayment(payment.id)).toEqual([]);
      await h.poll();
      await waitForStage(page, 'confirming');
    } finally {
      await context.close();
    }
  });

  it('pays with a normal transfer, as before, where gasless payment is not offered', async () => {
    const payment = await newPayment('12.5');
    const context = await walletContext({ knowsChain: true });
    try {
      const asked: string[] = [];
      context.on('request', (request) => asked.push(new URL(request.url()).pathname));
      const page = await open(context, payment); // the checkout built without a `gasless` dependency
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page
        .locator('[data-wallet-message="sent"]')
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const methods = await page.evaluate(() =>
        (window as unknown as { __walletCalls: { method: string }[] }).__walletCalls.map((c) => c.method),
      );
      expect(methods).not.toContain('eth_signTypedData_v4');
      expect(methods.at(-1)).toBe('eth_sendTransaction');
      // It never asks for what is not there, and never offers it.
      expect(asked.filter((path) => /gasless|authorization/.test(path))).toEqual([]);
      expect(await page.locator('[data-gasless-hint]').isVisible()).toBe(false);
      expect(await page.locator('[data-pay-with-gas]').isVisible()).toBe(false);
      await h.poll();
      await waitForStage(page, 'confirming');
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(12_500_000n);
    } finally {
      await context.close();
    }
  });

  it('shows no wallet button when the browser has no wallet', async () => {
    const payment = await newPayment('12.5');
    const context = await walletContext({ none: true });
    try {
      const page = await open(context, payment);
      // The script has run (the copy buttons it reveals are there) and the page has loaded.
      await page
        .getByRole('button', { name: 'Copy the deposit address' })
        .waitFor({ timeout: UI_TIMEOUT_MS });
      await page.waitForLoadState('load');
      expect(await page.getByRole('button', { name: /^Pay with/ }).count()).toBe(0);
      expect(await page.locator('[data-wallet]').isVisible()).toBe(false);
      await screenshot(page, 'no-wallet');
    } finally {
      await context.close();
    }
  });

  it('tells the customer clearly: rejected, wrong chain, insufficient balance', async () => {
    const payment = await newPayment('12.5');
    const message = (page: Page, kind: string) => page.locator(`[data-wallet-message="${kind}"]`);
    const click = (page: Page) => page.getByRole('button', { name: 'Pay with browser wallet' }).click();

    const cases: [string, WalletOptions, RegExp][] = [
      ['rejected', { knowsChain: true, reject: ['eth_sendTransaction'] }, /rejected in your wallet/],
      ['rejected', { knowsChain: true, reject: ['eth_requestAccounts'] }, /rejected in your wallet/],
      [
        'wrong-chain',
        { knowsChain: true, reject: ['wallet_switchEthereumChain'] },
        /Switch it to Sandbox \(local anvil\), chain ID 31337, and try again/,
      ],
      [
        'insufficient',
        { knowsChain: true, accountIndex: EMPTY_ACCOUNT },
        /^Your wallet holds 0\.00 USDC on Sandbox \(local anvil\), but 12\.50 USDC is needed\.$/,
      ],
    ];
    for (const [kind, options, text] of cases) {
      const context = await walletContext(options);
      try {
        const page = await open(context, payment);
        await click(page);
        await message(page, kind).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
        expect(await message(page, kind).textContent()).toMatch(text);
        expect(await page.locator('[data-wallet-message]:visible').count()).toBe(1);
        // Nothing was sent, and the customer may try again.
        expect(await page.getByRole('button', { name: 'Pay with browser wallet' }).isEnabled()).toBe(true);
        await screenshot(page, `wallet-${kind}`);
      } finally {
        await context.close();
      }
    }
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
  });

  it('lists every transfer with its explorer link, and states an overpayment plainly', async () => {
    const payment = await newPayment('25', 'EUR'); // 27.00 USDC
    const context = await walletContext();
    try {
      const page = await open(context, payment, explorerCheckoutUrl);
      const hashes = [
        await h.pay(payment.deposit!.depositAddress, 20_000_000n),
        await h.pay(payment.deposit!.depositAddress, 17_000_000n),
      ];
      await h.finalizeAll();
      await h.poll();
      await waitForStage(page, 'paid');
      const paid = page.locator('section[data-stage="paid"]');
      await paid.locator('[data-overpaid]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      expect(await paid.locator('[data-overpaid]').textContent()).toBe(
        'You sent 37.00 USDC, 10.00 USDC more than the price; the merchant can refund the difference.',
      );
      const items = paid.locator('[data-transfers] li');
      expect(await items.count()).toBe(2);
      for (const [i, hash] of hashes.entries()) {
        const item = items.nth(i);
        expect(await item.locator('[data-t="amount"]').textContent()).toBe(i === 0 ? '20.00' : '17.00');
        expect(await item.locator('[data-t="txid"]').textContent()).toBe(hash);
        expect(
          await item.getByRole('link', { name: 'View on the block explorer' }).getAttribute('href'),
        ).toBe(`https://polygonscan.com/tx/${hash}`);
      }
      // The rate belongs to the payment step, not the end screens.
      expect(await page.locator('[data-rate]').isVisible()).toBe(false);
      await screenshot(page, 'paid-overpaid-two-transfers');

      // What the script built live is what the server renders on a fresh load.
      const live = await paid.textContent();
      await page.reload();
      expect(await page.locator('section[data-stage="paid"]').textContent()).toBe(live);
    } finally {
      await context.close();
    }
  });

  it('shows a partial payment with what remains, then the underpaid (failed) screen at expiry', async () => {
    const payment = await newPayment('10');
    const context = await walletContext();
    try {
      const page = await open(context, payment);
      await h.pay(payment.deposit!.depositAddress, 4_000_000n);
      await h.finalizeAll();
      await h.poll();
      await page.locator('[data-partial]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await page.locator('#amount').getByText('6.00').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.locator('[data-partial]').textContent()).toMatch(
        /4\.00 USDC has arrived\. Send the remaining 6\.00 USDC/,
      );
      // The QR and the wallet link now ask for the rest only.
      await page.locator('img[data-qr][src$="?amount=6000000"]').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.locator('[data-payment-link]').getAttribute('href')).toMatch(/&uint256=6000000$/);
      await screenshot(page, 'partial');

      h.clock.advance(PAYMENT_TTL_MS + 1_000);
      await waitForStage(page, 'failed');
      const failed = page.locator('section[data-stage="failed"]');
      expect(await failed.locator('h2').textContent()).toBe('Payment incomplete');
      expect(await failed.textContent()).toMatch(/Only 4\.00 USDC of the 10\.00 USDC due arrived/);
      expect(await failed.textContent()).toMatch(/Contact them with the payment reference below/);
      expect(await stillSameDocument(page)).toBe(true);
      await screenshot(page, 'failed-underpaid');
    } finally {
      await context.close();
    }
  });

  it('shows the expired screen once the link runs out, without reload', async () => {
    const payment = await newPayment('5');
    const context = await walletContext();
    try {
      const page = await open(context, payment);
      await waitForStage(page, 'pay');
      h.clock.advance(PAYMENT_TTL_MS + 1_000);
      await waitForStage(page, 'expired');
      const expired = page.locator('section[data-stage="expired"]');
      expect(await expired.locator('h2').textContent()).toBe('This payment link has expired');
      expect(await expired.getByRole('link', { name: 'Return to Chain Shop' }).getAttribute('href')).toBe(
        RETURN_URL,
      );
      expect(await stillSameDocument(page)).toBe(true);
      await screenshot(page, 'expired');
    } finally {
      await context.close();
    }
  });

  it('refuses to render inside an iframe of another origin', async () => {
    const payment = await newPayment('5');
    const parent = await serveParentPage(payUrl(payment));
    const context = await chromium.browser.newContext();
    try {
      const page = await context.newPage();
      const refusals: string[] = [];
      page.on('console', (message) => refusals.push(message.text()));
      await page.goto(parent.url);
      await page.waitForFunction(() => document.title === 'both frames loaded', undefined, {
        timeout: UI_TIMEOUT_MS,
      });
      const control = page.frame({ name: 'control' })!;
      const framed = page.frame({ name: 'checkout' })!;
      // The control frame (same setup, a page without frame-ancestors) renders: the harness can show frames.
      expect(await control.locator('#control').textContent()).toBe('control frame');
      // The checkout frame does not: the browser replaced it with its error page.
      expect(framed.url()).not.toBe(payUrl(payment));
      expect(await framed.locator('#checkout').count()).toBe(0);
      expect(refusals.join('\n')).toMatch(/frame-ancestors/);
      await screenshot(page, 'iframe-refused');
    } finally {
      await context.close();
      await parent.close();
    }
  });

  it('gives an unknown or malformed id the 404 page', async () => {
    const context = await chromium.browser.newContext({ locale: 'en-GB' });
    try {
      const page = await context.newPage();
      for (const path of ['/pay/00000000-0000-4000-8000-000000000000', '/pay/not-a-payment']) {
        const response = await page.goto(`${checkoutUrl}${path}`);
        expect(response?.status()).toBe(404);
        expect(await page.locator('h1').textContent()).toBe('Payment not found');
      }
      await screenshot(page, 'not-found');
    } finally {
      await context.close();
    }
  });

  it('is readable on a phone, in French, German and Spanish, with their own number formats', async () => {
    const phone = {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    };
    for (const [locale, heading, rate] of [
      ['fr-FR', 'En attente de votre paiement', '25,00 EUR = 27,00 USDC au taux de 1,08 EUR/USDC'],
      ['de-DE', 'Warten auf Ihre Zahlung', '25,00 EUR = 27,00 USDC zum Kurs von 1,08 EUR/USDC'],
      ['es-ES', 'Esperando su pago', '25,00 EUR = 27,00 USDC a 1,08 EUR/USDC'],
    ] as const) {
      const payment = await newPayment('25', 'EUR');
      const context = await walletContext({}, { ...phone, locale });
      try {
        const page = await open(context, payment);
        expect(await page.locator('section[data-stage="pay"] h2').textContent()).toBe(heading);
        expect(await page.locator('#amount').textContent()).toBe('27,00');
        expect(await page.locator('[data-rate]').textContent()).toContain(rate);
        // Nothing wider than the screen: no sideways scrolling on a phone.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        // The wallet link first, the QR code folded away behind its disclosure.
        const link = page.locator('[data-payment-link]');
        const toggle = page.locator('[data-qr-details] > summary');
        expect(await link.isVisible()).toBe(true);
        expect(await toggle.isVisible()).toBe(true);
        expect((await link.boundingBox())!.y).toBeLessThan((await toggle.boundingBox())!.y);
        expect(await page.locator('img[data-qr]').isVisible()).toBe(false);
        await screenshot(page, `phone-${locale}`);
        if (locale === 'de-DE') {
          await toggle.click();
          await page.locator('img[data-qr]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
          await screenshot(page, 'phone-de-DE-qr-shown');
        }

        // Live updates are written the same way: 4.50 arrives, 22,50 remain…
        await h.pay(payment.deposit!.depositAddress, 4_500_000n);
        await h.poll();
        await page.locator('#amount').getByText('22,50', { exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
        expect(await page.locator('[data-partial] [data-field="detected"]').textContent()).toBe('4,50');
        // …and copied as a wallet reads them.
        expect(await page.locator('#amount').getAttribute('data-value')).toBe('22.50');
      } finally {
        await context.close();
      }
    }
  });
});

/** A page on another origin (its own port) that frames the checkout, and a control page it frames as well. */
async function serveParentPage(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.url === '/control') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<p id="control">control frame</p>');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>
<title>framing</title>
<h1>Another site</h1>
<script>
  let loaded = 0;
  window.frameLoaded = () => { if (++loaded === 2) document.title = 'both frames loaded'; };
</script>
<iframe name="checkout" src="${target}" width="600" height="400" onload="frameLoaded()"></iframe>
<iframe name="control" src="/control" width="300" height="100" onload="frameLoaded()"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
