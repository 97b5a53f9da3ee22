/**
 * The refund claim page in a real browser (Debian's Chromium driven by playwright-core), served by the real
 * checkout server, for refunds of payments paid on a real chain (anvil): the customer types an address or fills
 * it from a browser wallet, the merchant funds the refund with a plain transfer, the real watcher, settler and
 * announcer run, and the page reaches "refunded" by itself with the transaction hash. Every page opened here
 * must log no console error and throw nothing. Nothing here asserts on time.
 */
import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdsCode } from '../../src/adapters/chain/contractCode.ts';
import type { DialectName } from '../../src/adapters/db/database.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { cancelRefund } from '../../src/app/refunds/cancelRefund.ts';
import { createRefund } from '../../src/app/refunds/createRefund.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { type ChainHarness, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { pageTestDialect } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { refundWorkerPasses } from '../helpers/refundWorker.ts';

declare const window: unknown;

const CLAIM_TTL_MS = 7 * 24 * 60 * 60_000;
/** Anvil's accounts 3 and 4 hold no USDC: refunds land there, so balances are exact. */
const TYPED_WALLET = 3;
const BROWSER_WALLET = 4;
/** An address given code on anvil: a contract that is not one of ours (a smart-contract wallet, say). */
const CONTRACT_WALLET = '0x00000000000000000000000000000000c0ffee01' as Address;

let h: ChainHarness;
let checkout: FastifyInstance;
let checkoutUrl: string;
const chromium = useChromium();
const { logger } = capturingLogger();

/** A chain, a database of the dialect and the checkout serving claim pages, for one describe block. */
async function startClaimPages(dialect: DialectName): Promise<void> {
  h = await startChainHarness(dialect);
  await h.anvil.testClient.setCode({ address: CONTRACT_WALLET, bytecode: '0x6000' });
  checkout = await buildCheckoutServer({
    ...h.stores,
    clock: h.clock,
    logger,
    network: { name: 'Polygon', chainId: h.anvil.chain.id, explorerUrl: 'https://polygonscan.com' },
    pollIntervalMs: 200,
    refundClaims: {
      claim: { refunds: h.stores.refunds, deposits: { live: h.deposits }, clock: h.clock },
      isContract: (_chainId, address) => holdsCode(h.anvil.publicClient, address),
      buckets: memoryBucketStore(),
    },
  });
  checkoutUrl = await checkout.listen({ host: '127.0.0.1', port: 0 });
}

async function stopClaimPages(): Promise<void> {
  await checkout?.close();
  await h?.close();
}

/** A payment paid in full and final, then a refund of it without an address: the customer claims it. */
async function refundToClaim(amount: string, paidBaseUnits: bigint): Promise<string> {
  const payment = await h.createPayment(amount);
  await h.pay(payment.deposit!.depositAddress, paidBaseUnits);
  await h.finalizeAll();
  await h.poll();
  const { record } = await createRefund(
    {
      refunds: h.stores.refunds,
      deposits: { live: h.deposits },
      clock: h.clock,
      refundClaimTtlMs: CLAIM_TTL_MS,
    },
    h.merchant.id,
    'live',
    { paymentId: payment.id, amount },
  );
  return record.refund.id;
}

/** A context whose page sees a wallet (EIP-1193) holding one anvil account: it only has to tell its address. */
async function walletContext(account: Address | null, locale = 'en-GB'): Promise<BrowserContext> {
  const context = await chromium.browser.newContext({ locale, timezoneId: 'UTC' });
  if (account)
    await context.addInitScript((account) => {
      const calls: string[] = [];
      (window as { ethereum?: unknown; __walletCalls?: string[] }).__walletCalls = calls;
      (window as { ethereum?: unknown }).ethereum = {
        async request({ method }: { method: string }) {
          calls.push(method);
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account];
          throw Object.assign(new Error(`test wallet: ${method} not supported`), { code: 4200 });
        },
      };
    }, account);
  return context;
}

async function open(context: BrowserContext, refundId: string, query = ''): Promise<Page> {
  const page = await context.newPage();
  chromium.watch(page);
  const response = await page.goto(`${checkoutUrl}/refunds/${refundId}${query}`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  return page;
}

async function waitForStage(page: Page, stage: string): Promise<void> {
  await page.locator(`section[data-stage="${stage}"]`).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  expect(await page.locator('section[data-stage]:visible').count()).toBe(1);
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${SCREENSHOTS}/refund-${name}.png`, fullPage: true, animations: 'disabled' });

describe.each([pageTestDialect])('refund claim page in Chromium, on %s', (dialect) => {
  beforeAll(() => startClaimPages(dialect));
  afterAll(stopClaimPages);

  it('a typed address: a typo is caught, the right one claimed, the refund followed to "refunded" with its transaction', async () => {
    const refundId = await refundToClaim('12.00', 12_000_000n);
    const wallet = h.anvil.addresses[TYPED_WALLET]!;
    const before = await h.balanceOf(wallet);
    const context = await walletContext(null);
    const page = await open(context, refundId);
    await waitForStage(page, 'claim');
    expect(await page.locator('header h1').textContent()).toBe(h.merchant.name);
    expect(await page.locator('[data-field="amount"]').textContent()).toBe('12.00');
    expect(await page.locator('main').textContent()).toContain(`Polygon · chain ID ${h.anvil.chain.id}`);
    expect(await page.locator('main').textContent()).toContain(h.usdc);
    // No browser wallet: no wallet button.
    expect(await page.locator('[data-fill-wallet]').isVisible()).toBe(false);
    await screenshot(page, 'claim');

    const input = page.locator('#refund-address');
    const problem = page.locator('[data-problem]');
    await input.fill('0x1234');
    await page.locator('[data-confirm]').click();
    await problem.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    expect(await problem.textContent()).toContain('40 characters');
    // One letter's case changed: the checksum catches it (on the server, where the checksum is computed).
    const typo = withTypo(wallet);
    expect(typo).not.toBe(wallet);
    await input.fill(typo);
    await page.locator('[data-confirm]').click();
    await expect.poll(() => problem.textContent(), { timeout: UI_TIMEOUT_MS }).toContain('typo');
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    // One of the service's own contracts is refused too.
    await input.fill(h.usdc);
    await page.locator('[data-confirm]').click();
    await expect.poll(() => problem.textContent(), { timeout: UI_TIMEOUT_MS }).toContain('not a wallet');
    // Nothing was claimed by the refused attempts.
    expect((await h.stores.refunds.find(refundId))?.refund.address).toBeNull();

    await input.fill(wallet);
    await page.locator('[data-confirm]').click();
    await waitForStage(page, 'progress');
    expect(await page.locator('section[data-stage="progress"] [data-field="address"]').textContent()).toBe(
      wallet,
    );
    await screenshot(page, 'progress');
    const stored = await h.stores.refunds.find(refundId);
    expect(stored?.refund).toMatchObject({ address: wallet, addressSource: 'customer' });

    // The merchant funds it from its wallet with a plain transfer; the worker does the rest.
    await h.pay(stored!.deposit!.deposit!.depositAddress, 12_000_000n, { fromIndex: ROLES.customer });
    expect(await refundWorkerPasses(h, logger)).toContain(refundId);
    await waitForStage(page, 'refunded');
    const txid = (await h.stores.refunds.find(refundId))?.deposit?.payout.txHash;
    expect(txid).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await page.locator('[data-field="txid"]').textContent()).toBe(txid);
    expect(await page.locator('[data-tx-link]').getAttribute('href')).toBe(
      `https://polygonscan.com/tx/${txid}`,
    );
    expect(await page.locator('[data-field="sent"]').textContent()).toBe('12.00');
    expect(await h.balanceOf(wallet)).toBe(before + 12_000_000n);
    await screenshot(page, 'refunded');

    // The link, used: a reload shows the refund, never the form again.
    await page.reload();
    await waitForStage(page, 'refunded');
    await context.close();
  });

  it('the wallet button fills the address from the browser wallet; the claim is made once', async () => {
    const refundId = await refundToClaim('5.00', 5_000_000n);
    const wallet = h.anvil.addresses[BROWSER_WALLET]!;
    const context = await walletContext(wallet);
    const page = await open(context, refundId);
    // A second page opened at the same time, still showing the form when the first has claimed.
    const stale = await walletContext(null);
    const other = await open(stale, refundId);
    await waitForStage(other, 'claim');
    const fill = page.locator('[data-fill-wallet]');
    await fill.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await fill.click();
    await expect
      .poll(() => page.locator('#refund-address').inputValue(), { timeout: UI_TIMEOUT_MS })
      .toBe(wallet);
    expect(await page.evaluate(() => (window as { __walletCalls: string[] }).__walletCalls)).toEqual([
      'eth_requestAccounts',
    ]);
    await page.locator('[data-confirm]').click();
    await waitForStage(page, 'progress');
    expect((await h.stores.refunds.find(refundId))?.refund.address).toBe(wallet);

    await other.locator('#refund-address').fill(h.anvil.addresses[TYPED_WALLET]!);
    await other.locator('[data-confirm]').click();
    await expect
      .poll(() => other.locator('[data-problem]').textContent(), { timeout: UI_TIMEOUT_MS })
      .toContain('already given');
    await waitForStage(other, 'progress');
    // The browser logs the 409 answer itself: expected here, and the only one.
    expect(chromium.errors.splice(0)).toEqual([
      'console: Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
    // The first address stands.
    expect((await h.stores.refunds.find(refundId))?.refund.address).toBe(wallet);
    await stale.close();
    await context.close();
  });

  it('warns before a contract address, and claims it only when the customer confirms', async () => {
    const refundId = await refundToClaim('3.00', 3_000_000n);
    const context = await walletContext(null);
    const page = await open(context, refundId);
    await page.locator('#refund-address').fill(CONTRACT_WALLET);
    await page.locator('[data-confirm]').click();
    const warning = page.locator('[data-contract-warning]');
    await warning.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    expect(await page.locator('[data-confirm]').textContent()).toBe('Yes, send it to this contract');
    expect((await h.stores.refunds.find(refundId))?.refund.address).toBeNull();
    await screenshot(page, 'contract-warning');
    await page.locator('[data-confirm]').click();
    await waitForStage(page, 'progress');
    expect((await h.stores.refunds.find(refundId))?.refund.address?.toLowerCase()).toBe(CONTRACT_WALLET);
    await context.close();
  });

  it('a canceled refund and an expired claim say so, in the page language, without a form', async () => {
    const canceledId = await refundToClaim('2.00', 2_000_000n);
    await cancelRefund({ refunds: h.stores.refunds, clock: h.clock }, h.merchant.id, 'live', canceledId);
    const context = await walletContext(null, 'fr-FR');
    const canceled = await open(context, canceledId);
    await waitForStage(canceled, 'canceled');
    expect(await canceled.locator('h2:visible').textContent()).toBe('Ce remboursement a été annulé');
    expect(await canceled.locator('[data-claim-form]').isVisible()).toBe(false);

    const openId = await refundToClaim('1.00', 1_000_000n);
    const page = await open(context, openId, '?lang=de');
    await waitForStage(page, 'claim');
    expect(await page.locator('#title-claim').textContent()).toBe('Wohin soll Ihre Erstattung gehen?');
    // The claim window closes; the open page notices on its next look (here: when it becomes visible again).
    h.clock.advance(CLAIM_TTL_MS);
    await page.evaluate(() =>
      (window as { document: { dispatchEvent(e: unknown): void } }).document.dispatchEvent(
        new Event('visibilitychange'),
      ),
    );
    await waitForStage(page, 'expired');
    expect(await page.locator('#title-expired').textContent()).toBe('Dieser Link ist abgelaufen');
    await screenshot(page, 'expired-de');

    const phone = await chromium.browser.newContext({
      viewport: { width: 360, height: 740 },
      locale: 'es-ES',
    });
    const small = await phone.newPage();
    await small.goto(`${checkoutUrl}/refunds/${canceledId}`);
    expect(await small.locator('#title-canceled').textContent()).toBe('Este reembolso fue cancelado');
    expect(
      await small.evaluate(
        () =>
          (window as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
            .scrollWidth,
      ),
    ).toBeLessThanOrEqual(360);
    await phone.close();
    await context.close();
  });

  it('an unknown or malformed refund id gets the refund 404 page', async () => {
    const context = await walletContext(null);
    const page = await context.newPage();
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-refund']) {
      const response = await page.goto(`${checkoutUrl}/refunds/${id}`);
      expect(response?.status()).toBe(404);
      expect(await page.locator('h1').textContent()).toBe('Refund not found');
    }
    await context.close();
  });
});

/** The address with the case of its first letter flipped: what a checksum (EIP-55) catches. */
function withTypo(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const letter = address[i]!;
  const flipped = letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase();
  return `${address.slice(0, i)}${flipped}${address.slice(i + 1)}`;
}
