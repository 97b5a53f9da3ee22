import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, payLinkDeps, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { accessibilityViolations, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

declare const window: { document: { documentElement: { scrollWidth: number } } };

const IMAGE = 'https://cdn.shop.example/band.svg';
const SUCCESS_URL = 'https://shop.example/thanks';
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="200"><rect width="600" height="200" fill="#2b6cb0"/></svg>';

const chromium = useChromium();
let h: ApiHarness;
let checkout: FastifyInstance;
let base: string;
let apiKey: string;

beforeAll(async () => {
  h = await startApiHarness('sqlite');
  apiKey = (await h.merchant({ name: 'Corner Café' })).apiKey;
  checkout = await buildCheckoutServer({
    ...h.stores,
    clock: h.clock,
    logger: capturingLogger().logger,
    network: { name: 'Sandbox (local anvil)', chainId: TEST_CHAIN.chainId, explorerUrl: '' },
    pollIntervalMs: 200,
    linkPages: { pay: payLinkDeps(h), buckets: memoryBucketStore() },
  });
  base = await checkout.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await checkout?.close();
  await h?.close();
});

async function createLink(fields: Record<string, unknown>): Promise<string> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/payments/api/links/',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    payload: JSON.stringify(fields),
  });
  expect(response.statusCode).toBe(201);
  return response.json().link_id;
}

/** A context whose only way out is the merchant's image and shop, answered here: nothing reaches the internet. */
async function context(viewport: { width: number; height: number }): Promise<BrowserContext> {
  const ctx = await chromium.browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'UTC' });
  await ctx.route(IMAGE, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: SVG }));
  await ctx.route(`${SUCCESS_URL}**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Thanks</title><h1>Thanks</h1>' }),
  );
  return ctx;
}

async function open(ctx: BrowserContext, path: string): Promise<Page> {
  const page = await ctx.newPage();
  chromium.watch(page);
  await page.goto(`${base}${path}`);
  return page;
}

/**
 * A reusable link's page in Chromium: at 1280 and 390 px it passes axe and fits the screen, its image loads under
 * the page's policy, a payer picks an amount and lands on the payment for exactly that; the minimum is taken and
 * below it the page says why; the paid page counts down to the shop and can be stopped.
 */
describe('link pages in Chromium', () => {
  it.each([
    { width: 1280, height: 900, name: 'desktop' },
    { width: 390, height: 844, name: 'phone' },
  ])(
    'shows an open link at $width px, accessible, with its image, and a suggested amount pays exactly that',
    async (viewport) => {
      const id = await createLink({
        title: 'Tip the band',
        description: 'Thank you for coming tonight!',
        image_url: IMAGE,
        price_type: 'open',
        currency: 'EUR',
        min_amount: '2.00',
        max_amount: '200.00',
        suggested_amounts: ['5.00', '10.00', '20.00'],
      });
      const ctx = await context(viewport);
      try {
        const page = await open(ctx, `/l/${id}`);
        expect(await page.locator('h1').textContent()).toBe('Tip the band');
        const image = page.locator('img.link-image');
        await image.scrollIntoViewIfNeeded();
        await page.waitForFunction(
          () => {
            const img = (
              globalThis as unknown as {
                document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null };
              }
            ).document.querySelector('img.link-image');
            return img?.complete === true && img.naturalWidth > 0;
          },
          undefined,
          { timeout: UI_TIMEOUT_MS },
        );
        expect(await image.getAttribute('referrerpolicy')).toBe('no-referrer');
        expect(await page.evaluate(() => window.document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          viewport.width,
        );
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.screenshot({ path: `${SCREENSHOTS}/link-open-${viewport.name}.png`, fullPage: true });

        await page.getByRole('button', { name: '10.00 EUR' }).click();
        await page.waitForURL(/\/pay\/[0-9a-f-]{36}\?lang=en$/, { timeout: UI_TIMEOUT_MS });
        expect(await page.locator('.price strong').textContent()).toBe('10.00 EUR');
        const paymentId = new URL(page.url()).pathname.split('/')[2]!;
        const payment = await h.stores.payments.findById(paymentId);
        expect(payment?.linkId).toBe(id);
        expect(payment?.quote.amount.minorUnits).toBe(1000n);
      } finally {
        await ctx.close();
      }
    },
  );

  it('takes the minimum typed by the payer, and refuses just below it with the page’s error', async () => {
    const id = await createLink({
      title: 'Pay an invoice',
      price_type: 'open',
      currency: 'USDC',
      min_amount: '2.00',
      max_amount: '200.00',
    });
    const ctx = await context({ width: 390, height: 844 });
    try {
      const page = await open(ctx, `/l/${id}`);
      await page.getByLabel('Choose an amount').fill('1.99');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      const error = page.getByRole('alert');
      await error.waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await error.textContent()).toBe('Enter an amount from 2.00 to 200.00 USDC.');
      expect(await page.getByLabel('Choose an amount').getAttribute('aria-invalid')).toBe('true');
      // The refusal is the page answered 400, which Chromium reports on the console: that one is expected.
      const refusal =
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)';
      expect(chromium.errors.splice(0)).toEqual([refusal]);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/link-amount-refused-phone.png`, fullPage: true });

      await page.getByLabel('Choose an amount').fill('2.00');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.waitForURL(/\/pay\/[0-9a-f-]{36}\?lang=en$/, { timeout: UI_TIMEOUT_MS });
      expect(await page.locator('.price strong').textContent()).toBe('2.00 USDC');
    } finally {
      await ctx.close();
    }
  });

  it('shows a fixed price with its quantity at 1280 and 390 px, accessible', async () => {
    const id = await createLink({
      title: 'Concert ticket',
      price_type: 'fixed',
      currency: 'EUR',
      amount: '25.00',
      max_quantity: '4',
    });
    for (const viewport of [
      { width: 1280, height: 900, name: 'desktop' },
      { width: 390, height: 844, name: 'phone' },
    ]) {
      const ctx = await context(viewport);
      try {
        const page = await open(ctx, `/l/${id}`);
        expect(await page.locator('.price strong').textContent()).toBe('25.00 EUR');
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.screenshot({ path: `${SCREENSHOTS}/link-fixed-${viewport.name}.png`, fullPage: true });
      } finally {
        await ctx.close();
      }
    }
  });

  it('counts down on the paid page to the success_url, with the payment id, unless the payer stays', async () => {
    const id = await createLink({
      title: 'Coffee',
      price_type: 'fixed',
      currency: 'USDC',
      amount: '3.00',
      success_url: SUCCESS_URL,
    });
    const ctx = await context({ width: 390, height: 844 });
    try {
      const paymentIds: string[] = [];
      for (let i = 0; i < 2; i += 1) {
        const page = await open(ctx, `/l/${id}`);
        await page.getByRole('button', { name: 'Continue to payment' }).click();
        await page.waitForURL(/\/pay\//, { timeout: UI_TIMEOUT_MS });
        paymentIds.push(new URL(page.url()).pathname.split('/')[2]!);
        await page.close();
      }
      for (const paymentId of paymentIds) await payInFull(h, paymentId);

      // The payer who stays: the countdown is shown, then stopped; the page's clock runs on and nothing moves.
      const staying = await ctx.newPage();
      chromium.watch(staying);
      await staying.clock.install();
      await staying.goto(`${base}/pay/${paymentIds[0]}`);
      const countdown = staying.locator('[data-redirect]');
      await countdown.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      expect(await countdown.textContent()).toContain('Taking you back to Corner Café in 5 s.');
      await staying.clock.runFor(1_000);
      expect(await staying.locator('[data-redirect-seconds]').textContent()).toBe('4');
      expect(await accessibilityViolations(staying)).toEqual([]);
      await staying.screenshot({ path: `${SCREENSHOTS}/link-paid-countdown-phone.png`, fullPage: true });
      await staying.getByRole('button', { name: 'Stay on this page' }).click();
      expect(await countdown.isHidden()).toBe(true);
      await staying.clock.runFor(30_000);
      expect(staying.url()).toBe(`${base}/pay/${paymentIds[0]}`);
      expect(await staying.getByRole('link', { name: 'Return to Corner Café' }).getAttribute('href')).toBe(
        `${SUCCESS_URL}?payment_id=${paymentIds[0]}`,
      );

      // The payer who waits is taken back to the shop, the payment named.
      const waiting = await ctx.newPage();
      chromium.watch(waiting);
      await waiting.clock.install();
      await waiting.goto(`${base}/pay/${paymentIds[1]}`);
      await waiting.locator('[data-redirect]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await waiting.clock.runFor(6_000);
      await waiting.waitForURL(`${SUCCESS_URL}?payment_id=${paymentIds[1]}`, { timeout: UI_TIMEOUT_MS });
    } finally {
      await ctx.close();
    }
  });
});
