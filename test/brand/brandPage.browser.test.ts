import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanScreen, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { solidPng } from '../helpers/images.ts';
import { type SandboxProcess, startSandbox } from '../helpers/sandboxProcess.ts';

/**
 * The brand page in Chromium on the sandbox (decision 0052), at 1280 and 390 px: the demo merchant types a colour
 * too light for white text and is told so beside the field, then saves a colour and a logo and sees the logo as
 * customers will; each screen passes axe and does not scroll sideways.
 */
describe('the brand page (sandbox, Chromium)', { timeout: 240_000 }, () => {
  let sandbox: SandboxProcess;
  const chromium = useChromium();

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  const checkScreen = (page: Page, name: string) =>
    expectCleanScreen(page, name, join(SCREENSHOTS, `brand-${name}-${page.viewportSize()?.width}.png`));

  it.each([
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ])('refuses a light colour and saves a logo at $width px', async (viewport) => {
    const credentials = /^\s+merchant\s+(\S+)\s+password (\S+)$/m.exec(sandbox.output());
    expect(credentials).not.toBeNull();
    const context = await chromium.browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'UTC' });
    try {
      const page = chromium.watch(await context.newPage());
      await page.goto(`${sandbox.apiUrl}/dashboard/login`);
      await page.locator('#email').fill(credentials![1]!);
      await page.locator('#password').fill(credentials![2]!);
      await page.locator('form[action="/dashboard/login"] button[type="submit"]').click();
      await page.waitForURL(/\/dashboard\/home/, { timeout: UI_TIMEOUT_MS });
      // Reached from the home page (the navigation stays one line at 1280 px without it).
      await page
        .getByRole('link', { name: 'Your brand: the name, colour and logo your customers see' })
        .click();
      await page.waitForURL(/\/dashboard\/brand$/, { timeout: UI_TIMEOUT_MS });

      await page.getByLabel('Brand colour').fill('#ffd700');
      await page.getByRole('button', { name: 'Save brand' }).click();
      await page.getByRole('alert').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.getByRole('alert').textContent()).toContain('colour: is too light for white text');
      // The refusal's page is a 400, which Chromium logs: expected here, and only that.
      expect(chromium.errors.splice(0)).toEqual([
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
      expect(await page.getByLabel('Brand colour').getAttribute('aria-invalid')).toBe('true');
      await checkScreen(page, 'refused');

      await page.getByLabel('Brand colour').fill('#0b5f3a');
      await page.getByLabel('Display name').fill('Demo Roastery');
      await page.getByLabel('Logo').setInputFiles({
        name: 'logo.png',
        mimeType: 'image/png',
        buffer: solidPng(160, 48, [0x0b, 0x5f, 0x3a]),
      });
      // The address typed as lines in the textarea, as on an envelope (decision 0057).
      await page.getByLabel('Address on receipts').fill('Oranienstraße 12\n10999 Berlin');
      await page.getByLabel('Tax or VAT id').fill('DE123456789');
      await page.getByRole('button', { name: 'Save brand' }).click();
      await page.getByRole('status').filter({ hasText: 'Brand saved.' }).waitFor({ timeout: UI_TIMEOUT_MS });
      const logo = page.getByRole('img', { name: 'Demo Roastery' });
      expect(await logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(
        160,
      );
      expect(await page.getByLabel('Address on receipts').inputValue()).toBe(
        'Oranienstraße 12\n10999 Berlin',
      );
      expect(await page.getByLabel('Tax or VAT id').inputValue()).toBe('DE123456789');
      await checkScreen(page, 'saved');
    } finally {
      await context.close();
    }
  });
});
