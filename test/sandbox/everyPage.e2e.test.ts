import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES, type Viewer } from '../../scripts/screenshots/pages.ts';
import { makeScene, SCENE_PAYMENT_TTL, type Scene } from '../../scripts/screenshots/scene.ts';
import { originOf } from '../../scripts/screenshots/steadyPage.ts';
import { openViewers } from '../../scripts/screenshots/viewers.ts';
import { expectCleanScreen, useChromium } from '../helpers/browser.ts';
import { type SandboxProcess, startSandbox } from '../helpers/sandboxProcess.ts';

/** What some pages must say, beyond passing axe: issue 38's donation and overpayment, as the customer reads them. */
const SAYS: Record<string, readonly string[]> = {
  // The donor chose 10.00 EUR: the success screen names that price, not only the USDC it came to.
  'checkout-donation-paid': ['10.00 EUR', '10.80 USDC'],
  // Paid 10.80 USDC, then 2.00 more: both transfers and all that arrived.
  'checkout-overpaid': ['12.80', '2.00'],
  'receipt-overpaid': ['10.00 EUR', '12.80 USDC', '10.80 USDC', '2.00 USDC'],
  receipt: ['42.00 EUR', '45.36 USDC'],
  'checkout-expired': ['expired'],
};

/**
 * Every page `npm run screenshots` takes (scripts/screenshots/pages.ts, which the route test keeps complete), on
 * the sandbox with the same demo data, at each of its widths: axe finds nothing, no page scrolls sideways (at a
 * desk's width either), no page logs an error; the donation's and the overpayment's pages say what was paid.
 */
describe('every page, on the sandbox, at each of its widths (Chromium)', { timeout: 120_000 }, () => {
  const chromium = useChromium();
  let sandbox: SandboxProcess;
  let scene: Scene;
  let viewers: Record<Viewer, BrowserContext>;

  beforeAll(async () => {
    sandbox = await startSandbox({ PAYLINK_LOG_LEVEL: 'warn', PAYLINK_PAYMENT_TTL: SCENE_PAYMENT_TTL });
    scene = await makeScene(sandbox);
    viewers = await openViewers(chromium.browser, scene);
  }, 300_000);
  afterAll(async () => {
    await sandbox?.stop();
  });

  for (const entry of PAGES)
    it(`${entry.name} at ${entry.widths.join(' and ')} px`, async () => {
      const page = chromium.watch(await viewers[entry.viewer].newPage());
      try {
        const response = await page.goto(`${originOf(scene, entry)}${entry.path(scene)}`);
        expect(response?.status()).toBe(200);
        await page.waitForLoadState('networkidle');
        const text = (await page.locator('body').textContent()) ?? '';
        for (const said of SAYS[entry.name] ?? []) expect(text, entry.name).toContain(said);
        for (const width of entry.widths) {
          await page.setViewportSize({ width, height: 900 });
          await expectCleanScreen(page, entry.name);
        }
      } finally {
        await page.close();
      }
    });
});
