import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanScreen, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { type SandboxProcess, startSandbox } from '../helpers/sandboxProcess.ts';

const PASSWORD = 'counter staff passphrase';
const TABLET = { width: 768, height: 1024 };
const PHONE = { width: 390, height: 844 };

/**
 * The point of sale in Chromium on the sandbox a newcomer starts (its own chain, worker and watcher; decision
 * 0054): the merchant fills the catalogue, a PoS user made by the CLI sets a password and signs in, and at 768 px
 * (a tablet) and 390 px (a phone, in German) rings up a sale, shows its QR code, is paid by a real USDC transfer
 * on the sandbox's chain (`paylink sandbox pay`), and turns to "Paid". Each screen (entry, QR, paid) is checked
 * with axe and for sideways scrolling at its width, and its screenshot kept.
 */
describe('the point of sale from amount to paid (sandbox, Chromium)', { timeout: 240_000 }, () => {
  let sandbox: SandboxProcess;
  const chromium = useChromium();

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  async function newPage(viewport: { width: number; height: number }): Promise<Page> {
    const context = await chromium.browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'UTC' });
    return chromium.watch(await context.newPage());
  }

  /** Axe finds nothing serious, the page does not scroll sideways at its width, and its screenshot is kept. */
  const checkScreen = (page: Page, name: string) =>
    expectCleanScreen(page, name, join(SCREENSHOTS, `pos-${name}-${page.viewportSize()?.width}.png`));

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${sandbox.apiUrl}/dashboard/login`);
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(password);
    await page.locator('form[action="/dashboard/login"] button[type="submit"]').click();
  }

  /** Rings up a sale on the entry screen, charges it, pays it on the chain and waits for "Paid". */
  async function sellAndPay(page: Page, words: { paid: string }): Promise<string> {
    await page.locator('button[type="submit"].pos-charge').click();
    await page.waitForURL(/\/dashboard\/pos\/sales\/[0-9a-f-]{36}$/, { timeout: UI_TIMEOUT_MS });
    const saleId = /([0-9a-f-]{36})$/.exec(page.url())![1]!;
    expect(await page.locator('.pos-qr img').isVisible()).toBe(true);
    expect(await page.locator('.pos-qr img').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    const address = await page.locator('.pos-deposit').textContent();
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The chain named as wallets name it, for apps that take the address alone.
    expect(await page.locator('.pos-address').textContent()).toContain('Sandbox');
    await checkScreen(page, 'qr');
    const sent = await runCli(['sandbox', 'pay', saleId], sandbox.env);
    expect(sent.stdout).toContain(address!);
    // The screen polls the status and turns to the confirmation by itself.
    await page.locator('h1.pos-outcome').filter({ hasText: words.paid }).waitFor({ timeout: UI_TIMEOUT_MS });
    return saleId;
  }

  it('lets the merchant fill the catalogue', async () => {
    const credentials = /^\s+merchant\s+(\S+)\s+password (\S+)$/m.exec(sandbox.output());
    expect(credentials).not.toBeNull();
    const owner = await newPage(TABLET);
    await signIn(owner, credentials![1]!, credentials![2]!);
    // A tablet's navigation is the menu: opened, then the counter's entry taken.
    await owner.locator('details.menu summary').click();
    await owner.locator('details.menu').getByRole('link', { name: 'Point of sale' }).click();
    await owner.getByRole('link', { name: 'Manage the catalogue' }).click();
    for (const [name, price] of [
      ['Coffee', '2.50'],
      ['Croissant', '1,80'],
    ] as const) {
      await owner.locator('#item-name').fill(name);
      await owner.locator('#item-price').fill(price);
      await owner.locator('#item-currency').fill('EUR');
      await owner.getByRole('button', { name: 'Add item' }).click();
      await owner.getByRole('cell', { name, exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    }
    await checkScreen(owner, 'catalogue');
  });

  it('takes a sale at the counter on a tablet: items and an amount, the QR code, paid', async () => {
    const made = await runCli(
      ['user', 'create', '--email', 'till@stall.example', '--role', 'pos', '--merchant', sandbox.merchantId],
      sandbox.env,
    );
    expect(made.code).toBe(0);
    const link = /^\s+(http\S+\/dashboard\/set-password#\S+)$/m.exec(made.stdout)![1]!;
    const till = await newPage(TABLET);
    await till.goto(link);
    await till.locator('#password').fill(PASSWORD);
    await till.locator('form[action="/dashboard/set-password"] button[type="submit"]').click();
    await till.waitForURL(/\/dashboard\/login/, { timeout: UI_TIMEOUT_MS });
    await signIn(till, 'till@stall.example', PASSWORD);
    // A PoS user lands at the counter, and its navigation has nothing else.
    await till.waitForURL(/\/dashboard\/pos$/, { timeout: UI_TIMEOUT_MS });
    expect(await till.locator('header details.menu nav[aria-label="Main"] a').allTextContents()).toEqual([
      'Point of sale',
    ]);

    const coffee = till.locator('.pos-item').filter({ hasText: 'Coffee' });
    await coffee.getByRole('button', { name: 'One more Coffee' }).click();
    await coffee.getByRole('button', { name: 'One more Coffee' }).click();
    await till.locator('#pos-amount').fill('1.20');
    await expect(till.locator('[data-total]').textContent()).resolves.toBe('6.20 EUR');
    await checkScreen(till, 'entry');
    const saleId = await sellAndPay(till, { paid: 'Paid' });
    await expect(till.locator('.pos-price').textContent()).resolves.toContain('6.20 EUR');
    await expect(till.locator('.pos-reference').textContent()).resolves.toBe(
      saleId.replaceAll('-', '').slice(-8).toUpperCase(),
    );
    // The receipt as a QR code for the customer's phone: the page the receipt e-mail links to.
    await till.getByRole('button', { name: 'Show the receipt as a QR code' }).click();
    await till.getByRole('img', { name: 'QR code of the receipt page' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await checkScreen(till, 'paid');
    // "New sale" starts again from an empty form.
    await till.getByRole('link', { name: 'New sale' }).click();
    await till.waitForURL(/\/dashboard\/pos$/, { timeout: UI_TIMEOUT_MS });
    expect(await till.locator('#pos-amount').inputValue()).toBe('');
  });

  it('takes a sale on a phone in German, the amount typed with a decimal comma', async () => {
    const phone = await newPage(PHONE);
    await signIn(phone, 'till@stall.example', PASSWORD);
    await phone.waitForURL(/\/dashboard\/pos$/, { timeout: UI_TIMEOUT_MS });
    await phone.goto(`${sandbox.apiUrl}/dashboard/pos?lang=de`);
    const croissant = phone.locator('.pos-item').filter({ hasText: 'Croissant' });
    await croissant.getByRole('button', { name: 'Ein Croissant mehr' }).click();
    await phone.locator('#pos-amount').fill('2,50');
    await expect(phone.locator('[data-total]').textContent()).resolves.toBe('4,30 EUR');
    await checkScreen(phone, 'entry');
    await sellAndPay(phone, { paid: 'Bezahlt' });
    await expect(phone.locator('.pos-price').textContent()).resolves.toContain('4,30 EUR');
    await checkScreen(phone, 'paid');
  });
});
