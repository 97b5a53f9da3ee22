import type { FastifyInstance } from 'fastify';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectImage } from '../../src/adapters/dashboard/brandPages.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { updateBrand } from '../../src/app/brand/updateBrand.ts';
import { DEFAULT_LOGO_RULES } from '../../src/domain/brand.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, payLinkDeps, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { accessibilityViolations, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { solidPng } from '../helpers/images.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

declare const window: {
  document: { documentElement: { scrollWidth: number } };
  getComputedStyle(element: unknown): { backgroundColor: string };
};
/** The merchant's brand colour, #0b5f3a, as the browser computes it. */
const BRAND_GREEN = 'rgb(11, 95, 58)';

const chromium = useChromium();
let h: ApiHarness;
let checkout: FastifyInstance;
let base: string;
let apiKey: string;

beforeAll(async () => {
  h = await startApiHarness('sqlite');
  const merchant = await h.merchant({ name: 'Corner Roastery' });
  apiKey = merchant.apiKey;
  // Branded as on the dashboard's brand page (decision 0052): a display name, a colour and a logo.
  const logo = solidPng(120, 40, [0x0b, 0x5f, 0x3a]);
  await updateBrand({ brands: h.stores.brands, clock: h.clock, logoRules: DEFAULT_LOGO_RULES }, merchant.id, {
    displayName: 'Corner Roastery Kreuzberg',
    colour: '#0b5f3a',
    logo: { bytes: logo, image: detectImage(logo) },
  });
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

/**
 * A purchase through a link with items (issue 38, decision 0051) in Chromium at 1280 and 390 px: the link's
 * page lists what one purchase holds, the payer takes two, and the payment's checkout names the title, the
 * description and each line twice over with its total; both pages fit the screen and pass axe, before and after
 * the payment is paid.
 */
describe('a purchase through a link with items, in Chromium', () => {
  it.each([
    { width: 1280, height: 900, name: 'desktop' },
    { width: 390, height: 844, name: 'phone' },
  ])('at $width px', async (viewport) => {
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/links/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({
        title: 'Coffee subscription box',
        description: 'Single-origin beans, roasted the day before shipping',
        price_type: 'fixed',
        currency: 'EUR',
        amount: '27.00',
        max_quantity: 4,
        line_items: [
          { name: 'Espresso beans, Ethiopia Yirgacheffe, 1 kg bag', quantity: 1, unit_price: '24.50' },
          { name: 'Shipping', quantity: 1, unit_price: '2.50' },
        ],
      }),
    });
    expect(created.statusCode).toBe(201);
    const ctx = await chromium.browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'UTC' });
    try {
      const page = chromium.watch(await ctx.newPage());
      await page.goto(`${base}/l/${created.json().link_id}`);
      const linkRows = page.locator('.items tr');
      expect(await linkRows.allInnerTexts()).toEqual([
        expect.stringMatching(
          /^Espresso beans, Ethiopia Yirgacheffe, 1 kg bag\s+1 × 24\.50 EUR\s+24\.50 EUR$/,
        ),
        expect.stringMatching(/^Shipping\s+1 × 2\.50 EUR\s+2\.50 EUR$/),
      ]);
      await expectBranded(page, page.getByRole('button', { name: 'Continue to payment' }));
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/link-items-${viewport.name}.png`, fullPage: true });

      await page.getByLabel('Quantity (1 to 4)').fill('2');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.waitForURL(/\/pay\/[0-9a-f-]{36}\?lang=en$/, { timeout: UI_TIMEOUT_MS });
      expect(await page.locator('.price strong').textContent()).toBe('54.00 EUR');
      const order = page.getByRole('region', { name: 'Your order' });
      expect(await order.getByRole('heading', { level: 2 }).textContent()).toBe('Coffee subscription box');
      expect(await order.locator('.description').textContent()).toBe(
        'Single-origin beans, roasted the day before shipping',
      );
      expect(await order.locator('tr').allInnerTexts()).toEqual([
        expect.stringMatching(
          /^Espresso beans, Ethiopia Yirgacheffe, 1 kg bag\s+2 × 24\.50 EUR\s+49\.00 EUR$/,
        ),
        expect.stringMatching(/^Shipping\s+2 × 2\.50 EUR\s+5\.00 EUR$/),
      ]);
      expect(await page.evaluate(() => window.document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewport.width,
      );
      await expectBranded(page, page.locator('#pay-wallet'));
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/checkout-items-${viewport.name}.png`, fullPage: true });

      // Paid: the summary stays above the success screen, which the script shows by itself.
      await payInFull(h, new URL(page.url()).pathname.split('/')[2]!);
      await page.getByRole('heading', { name: 'Payment complete' }).waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await order.isVisible()).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});

/** The merchant's logo loaded (served by Paylink) under its display name, and the button in its colour. */
async function expectBranded(page: Page, button: Locator): Promise<void> {
  const logo = page.getByRole('img', { name: 'Corner Roastery Kreuzberg' });
  await logo.waitFor({ timeout: UI_TIMEOUT_MS });
  expect(await logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(120);
  expect(await page.locator('header.merchant').textContent()).toContain('Corner Roastery Kreuzberg');
  expect(await button.evaluate((element) => window.getComputedStyle(element).backgroundColor)).toBe(
    BRAND_GREEN,
  );
}
