/**
 * The checkout page in a real browser (Debian's Chromium driven by playwright-core), served by the real
 * checkout server on a real port, for payments on a real chain (anvil) recorded by the real chain watcher.
 * A test wallet is injected as an EIP-1193 provider backed by an anvil account (anvil's accounts are unlocked,
 * so eth_sendTransaction goes straight to the node). Screenshots of every state land in test-results/checkout/.
 *
 * Nothing here asserts on time: each step waits for the page to show a state, within generous limits.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type Address, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../src/adapters/chain/contractAbis.ts';
import { depositPlanner } from '../src/adapters/chain/depositPlanner.ts';
import { buildCheckoutApp } from '../src/adapters/checkout/buildCheckoutApp.ts';
import { eip681TransferLink } from '../src/adapters/checkout/eip681.ts';
import { qrSvg } from '../src/adapters/checkout/qrCode.ts';
import { marketRates } from '../src/adapters/rates/marketRates.ts';
import { staticSource } from '../src/adapters/rates/static.ts';
import { createPayment } from '../src/app/createPayment.ts';
import type { Payment } from '../src/domain/payment.ts';
import { type ChainHarness, PAYMENT_TTL_MS, ROLES, startChainHarness } from './helpers/chainHarness.ts';
import { capturingLogger } from './helpers/logCapture.ts';

// The callbacks given to page.evaluate run in the browser. The project compiles as Node code, without the DOM
// library, so the few browser globals they touch are declared here, for this module only.
declare const window: unknown;
declare const document: {
  title: string;
  documentElement: { scrollWidth: number };
  activeElement: { textContent: string | null } | null;
};
declare const navigator: { clipboard: { readText(): Promise<string> } };

const SCREENSHOTS = 'test-results/checkout';
const CHROMIUM = process.env.PAYLINK_CHROMIUM ?? '/usr/bin/chromium';
/** Generous: the machines are shared; a state that never comes still fails, just not on a stopwatch. */
const UI_TIMEOUT_MS = 30_000;
const RETURN_URL = 'https://shop.example.test/orders/42/thanks';
/** Anvil's account 3 holds no USDC. */
const EMPTY_ACCOUNT = 3;

let h: ChainHarness;
let checkout: FastifyInstance;
let checkoutUrl: string;
let browser: Browser;
let newPayment: (amount: string, currency?: string) => Promise<Payment>;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  h = await startChainHarness('sqlite');
  const { logger } = capturingLogger();
  // The same deposit planner and rates the harness uses, so the payment can carry a return URL too.
  const deposits = depositPlanner({
    chainId: h.anvil.chain.id,
    tokenAddress: h.usdc,
    factoryAddress: h.factory,
    treasuryAddress: h.addresses.treasury,
  });
  const rates = marketRates({
    sources: [staticSource({ EUR: '1.08' }, () => h.clock.now())],
    clock: h.clock,
    cacheTtlMs: 60_000,
    maxAgeMs: 60_000,
    maxSpreadBps: 100,
    timeoutMs: 1_000,
    logger,
  });
  newPayment = (amount, currency = 'USDC') =>
    createPayment(
      {
        ...h.stores,
        deposits: { live: deposits },
        rates,
        clock: h.clock,
        maxAmountBaseUnits: 10n ** 12n,
        paymentTtlMs: PAYMENT_TTL_MS,
        webhookAllowPrivate: true,
      },
      h.merchant,
      { amount, currency, returnUrl: RETURN_URL, customerEmail: 'customer@example.com', orderId: 'o-1' },
    );

  checkout = await buildCheckoutApp({
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
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await checkout?.close();
  await h?.close();
});

interface WalletOptions {
  /** The anvil account the wallet holds. */
  readonly accountIndex?: number;
  /** The chain the wallet starts on; 0x1 by default, so the page must switch it. */
  readonly startChainId?: string;
  /** Whether the wallet already knows the payment's chain (else switching fails with 4902 until added). */
  readonly knowsChain?: boolean;
  /** Methods the user rejects (EIP-1193 code 4001). */
  readonly reject?: readonly string[];
}

/**
 * A browser context with a test wallet injected as `window.ethereum`, EIP-1193 style: account and chain
 * requests are answered by the shim itself, every other request is forwarded to anvil through a Playwright
 * binding (outside the page, as a wallet extension does, so the page's CSP connect-src is not involved).
 */
async function walletContext(options: WalletOptions = {}, contextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ locale: 'en-GB', ...contextOptions });
  await context.exposeFunction('__anvilRpc', async (method: string, params: unknown[]) => {
    const response = await fetch(h.anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return response.json();
  });
  const account = h.anvil.addresses[options.accountIndex ?? ROLES.customer]!;
  await context.addInitScript(
    ({ account, chainId, startChainId, knowsChain, reject }) => {
      type RpcAnswer = { result?: unknown; error?: { code: number; message: string } };
      const w = window as unknown as {
        __anvilRpc(method: string, params: unknown[]): Promise<RpcAnswer>;
        __walletCalls: { method: string; params: unknown }[];
        ethereum: unknown;
      };
      let current = startChainId;
      const known = new Set(['0x1', ...(knowsChain ? [chainId] : [])]);
      const fail = (code: number, message: string) => Object.assign(new Error(message), { code });
      w.__walletCalls = [];
      w.ethereum = {
        isTestWallet: true,
        async request({ method, params }: { method: string; params?: unknown[] }) {
          w.__walletCalls.push({ method, params });
          if (reject.includes(method)) throw fail(4001, 'User rejected the request.');
          switch (method) {
            case 'eth_requestAccounts':
            case 'eth_accounts':
              return [account];
            case 'eth_chainId':
              return current;
            case 'wallet_switchEthereumChain': {
              const [{ chainId: wanted }] = params as [{ chainId: string }];
              if (!known.has(wanted)) throw fail(4902, `Unrecognized chain ID ${wanted}`);
              current = wanted;
              return null;
            }
            case 'wallet_addEthereumChain': {
              const [added] = params as [{ chainId: string }];
              known.add(added.chainId);
              current = added.chainId; // as MetaMask does once the user approves
              return null;
            }
            default: {
              if (current !== chainId) throw fail(4100, 'test wallet: the node is only reachable on anvil');
              const answer = await w.__anvilRpc(method, params ?? []);
              if (answer.error) throw fail(answer.error.code, answer.error.message);
              return answer.result;
            }
          }
        },
      };
    },
    {
      account,
      chainId: `0x${h.anvil.chain.id.toString(16)}`,
      startChainId: options.startChainId ?? '0x1',
      knowsChain: options.knowsChain ?? false,
      reject: [...(options.reject ?? [])],
    },
  );
  return context;
}

const payUrl = (payment: Payment) => `${checkoutUrl}/pay/${payment.id}`;

async function open(context: BrowserContext, payment: Payment): Promise<Page> {
  const page = await context.newPage();
  const response = await page.goto(payUrl(payment));
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
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true, animations: 'disabled' });
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
      await screenshot(page, '01-waiting');

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

    const noScript = await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
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
      await screenshot(page, '02-no-javascript');
    } finally {
      await noScript.close();
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
      expect(await page.locator('section[data-stage="confirming"] [data-field="txid"]').textContent()).toBe(
        hash,
      );
      await screenshot(page, '03-confirming');

      // Final → paid: the success screen, its transaction and the merchant's return link, same document.
      await h.finalizeAll();
      await h.poll();
      await waitForStage(page, 'paid');
      const paid = page.locator('section[data-stage="paid"]');
      expect(await paid.locator('h2').textContent()).toBe('Payment complete');
      expect(await paid.locator('[data-field="txid"]').textContent()).toBe(hash);
      expect(await paid.locator('[data-field="received"]').textContent()).toBe('27.00');
      expect(await paid.getByRole('link', { name: 'Return to Chain Shop' }).getAttribute('href')).toBe(
        RETURN_URL,
      );
      expect(await page.locator('[data-live]').textContent()).toBe('Payment complete');
      expect(await stillSameDocument(page)).toBe(true);
      await screenshot(page, '04-paid');
    } finally {
      await context.close();
    }
  });

  it('tells the customer clearly: no wallet, rejected, wrong chain, insufficient balance', async () => {
    const payment = await newPayment('12.5');
    const message = (page: Page, kind: string) => page.locator(`[data-wallet-message="${kind}"]`);
    const click = (page: Page) => page.getByRole('button', { name: 'Pay with browser wallet' }).click();

    const noWallet = await browser.newContext({ locale: 'en-GB' });
    try {
      const page = await open(noWallet, payment);
      await click(page);
      await message(page, 'none').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      expect(await message(page, 'none').textContent()).toMatch(/^No browser wallet was found/);
      await screenshot(page, '05-wallet-none');
    } finally {
      await noWallet.close();
    }

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
        await screenshot(page, `06-wallet-${kind}`);
      } finally {
        await context.close();
      }
    }
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
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
      await screenshot(page, '07-partial');

      h.clock.advance(PAYMENT_TTL_MS + 1_000);
      await waitForStage(page, 'failed');
      const failed = page.locator('section[data-stage="failed"]');
      expect(await failed.locator('h2').textContent()).toBe('Payment incomplete');
      expect(await failed.textContent()).toMatch(/Only 4\.00 USDC of the 10\.00 USDC due arrived/);
      expect(await failed.textContent()).toMatch(/Contact them with the payment reference below/);
      expect(await stillSameDocument(page)).toBe(true);
      await screenshot(page, '08-failed-underpaid');
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
      await screenshot(page, '09-expired');
    } finally {
      await context.close();
    }
  });

  it('refuses to render inside an iframe of another origin', async () => {
    const payment = await newPayment('5');
    const parent = await serveParentPage(payUrl(payment));
    const context = await browser.newContext();
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
      await screenshot(page, '10-iframe-refused');
    } finally {
      await context.close();
      await parent.close();
    }
  });

  it('gives an unknown or malformed id the 404 page', async () => {
    const context = await browser.newContext({ locale: 'en-GB' });
    try {
      const page = await context.newPage();
      for (const path of ['/pay/00000000-0000-4000-8000-000000000000', '/pay/not-a-payment']) {
        const response = await page.goto(`${checkoutUrl}${path}`);
        expect(response?.status()).toBe(404);
        expect(await page.locator('h1').textContent()).toBe('Payment not found');
      }
      await screenshot(page, '11-not-found');
    } finally {
      await context.close();
    }
  });

  it('is readable on a phone, in French, German and Spanish', async () => {
    const payment = await newPayment('25', 'EUR');
    const phone = {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    };
    for (const [locale, heading] of [
      ['fr-FR', 'En attente de votre paiement'],
      ['de-DE', 'Warten auf Ihre Zahlung'],
      ['es-ES', 'Esperando su pago'],
    ] as const) {
      const context = await walletContext({}, { ...phone, locale });
      try {
        const page = await open(context, payment);
        expect(await page.locator('section[data-stage="pay"] h2').textContent()).toBe(heading);
        // Nothing wider than the screen: no sideways scrolling on a phone.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await screenshot(page, `12-phone-${locale}`);
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
