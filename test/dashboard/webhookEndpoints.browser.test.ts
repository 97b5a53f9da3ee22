import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { insertOutboxEvent } from '../../src/adapters/db/outbox.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { newEventId } from '../../src/domain/credentials.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { accessibilityViolations, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { freePort } from '../helpers/net.ts';

declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };

const PASSWORD = 'correct horse battery staple';
const WIDTHS = [1280, 390] as const;
const chromium = useChromium();

/**
 * The webhook endpoints page (decision 0058) in Chromium, under the dashboard's strict CSP (the harness's watch
 * fails on any console error or CSP report): a merchant user adds an endpoint for one event type and copies its
 * secret, shown once; disables it, rotates its secret (the old one's end shown), deletes it. Checked with axe and
 * for sideways scrolling at a desk's and a phone's width, and in French. One database: the pages are the point.
 */
describe('webhook endpoints page in Chromium', () => {
  let h: ApiHarness;
  let base: string;
  let merchantId: string;
  let apiKey: string;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    h = await startApiHarness('sqlite', {
      env: { PAYLINK_BASE_URL: base },
      overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
    });
    await h.app.listen({ host: '127.0.0.1', port });
    ({ id: merchantId, apiKey } = await h.merchant({ name: 'Corner Shop' }));
    const form = (url: string, fields: Record<string, string>) =>
      h.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
        payload: new URLSearchParams(fields).toString(),
      });
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email: 'dev@corner.example', role: 'merchant', merchantId },
    );
    await form('/dashboard/set-password', { token, password: PASSWORD });
    h.clock.advance(5 * 60_000);
    const signIn = await form('/dashboard/login', { email: 'dev@corner.example', password: PASSWORD });
    const cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE);
    if (!cookie) throw new Error(`sign-in answered ${signIn.statusCode}`);
    context = await chromium.browser.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
    await context.addCookies([{ name: cookie.name, value: cookie.value, url: `${base}/dashboard` }]);
    page = chromium.watch(await context.newPage());
  });
  afterAll(async () => {
    await context?.close();
    await h?.close();
  });

  const checkedAtBothWidths = async (name: string) => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page), `${name} at ${width}`).toEqual([]);
      const sizes = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(sizes.scroll, `${name} at ${width}`).toBeLessThanOrEqual(sizes.client);
      await page.screenshot({
        path: `${SCREENSHOTS}/webhook-endpoints-${name}-${width}.png`,
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };
  const row = () => page.locator('tbody tr').filter({ hasText: 'https://books.example.com/paylink' });

  it('adds an endpoint and shows its secret once, then disables, rotates and deletes it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/dashboard/developers`);
    await page.getByRole('link', { name: 'Webhook endpoints: add, disable, rotate, delete' }).click();
    await page.waitForURL(`${base}/dashboard/developers/webhooks`, { timeout: UI_TIMEOUT_MS });
    expect(await page.getByText('No webhook endpoint in this mode yet.').isVisible()).toBe(true);

    // The server refuses what the browser lets through (plain http), naming the problem.
    await page.locator('#endpoint-url').fill('http://books.example.com/paylink');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await page.locator('main').textContent()).toContain('must be an https URL');
    // The refusal is a 400 page, which Chromium reports: the one error this test expects.
    expect(chromium.errors.splice(0)).toEqual([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    expect(await h.stores.webhookEndpoints.list(merchantId, 'live')).toStrictEqual([]);

    await page.goto(`${base}/dashboard/developers/webhooks`);
    await page.locator('#endpoint-url').fill('https://books.example.com/paylink');
    await page.locator('#endpoint-description').fill('Bookkeeping');
    await page.getByRole('checkbox', { name: 'payment.paid' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page
      .getByRole('heading', { name: 'New webhook endpoint: https://books.example.com/paylink' })
      .waitFor();
    const secret = await page.locator('#secret-0').inputValue();
    const [stored] = await h.stores.webhookEndpoints.list(merchantId, 'live');
    expect(stored).toMatchObject({
      secret,
      eventTypes: ['payment.paid'],
      description: 'Bookkeeping',
      enabled: true,
    });
    await page.getByRole('link', { name: 'Done' }).click();
    await page.waitForURL(`${base}/dashboard/developers/webhooks?mode=live`, { timeout: UI_TIMEOUT_MS });
    expect(await row().locator('td').nth(1).textContent()).toBe('payment.paid');
    expect(await row().locator('td').nth(2).textContent()).toBe('on');
    expect(await page.content()).not.toContain(secret);
    await checkedAtBothWidths('listed');

    await page.getByRole('button', { name: 'Disable https://books.example.com/paylink' }).click();
    await page.waitForURL(`${base}/dashboard/developers/webhooks?mode=live`, { timeout: UI_TIMEOUT_MS });
    expect(await row().locator('td').nth(2).textContent()).toBe('off');

    await page.getByRole('button', { name: 'Rotate secret of https://books.example.com/paylink' }).click();
    await page.getByRole('heading', { name: 'New secret for https://books.example.com/paylink' }).waitFor();
    const rotated = await page.locator('#secret-0').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await page.locator('main').textContent()).toContain('The old secret keeps signing too until');
    await page.getByRole('link', { name: 'Done' }).click();
    expect(await row().locator('td').nth(3).textContent()).toContain(
      'The old secret keeps signing too until',
    );

    // The test mode's endpoints are apart; the page speaks French when asked.
    await page.getByRole('link', { name: 'Test' }).click();
    expect(await page.getByText('No webhook endpoint in this mode yet.').isVisible()).toBe(true);
    await page.goto(`${base}/dashboard/developers/webhooks?mode=live&lang=fr`);
    expect(await page.locator('h1').textContent()).toBe('Points de réception des webhooks');
    await checkedAtBothWidths('french');
    await page.goto(`${base}/dashboard/developers/webhooks?lang=en`);

    await page.getByRole('button', { name: 'Delete https://books.example.com/paylink' }).click();
    await page.waitForURL(`${base}/dashboard/developers/webhooks?mode=live`, { timeout: UI_TIMEOUT_MS });
    expect(await page.getByText('No webhook endpoint in this mode yet.').isVisible()).toBe(true);
    expect(await h.stores.webhookEndpoints.list(merchantId, 'live')).toStrictEqual([]);
  });

  it('shows an event’s endpoint deliveries in the webhook logs: the payment’s and the developer page’s', async () => {
    const api = (method: 'POST', url: string, payload: unknown) =>
      h.app.inject({ method, url, headers: { 'x-api-key': apiKey }, payload: payload as object });
    const endpoint = await api('POST', '/payments/api/webhook_endpoints/', {
      url: 'https://ledger.example.com/hooks',
    });
    expect(endpoint.statusCode).toBe(201);
    const created = await api('POST', '/payments/api/create/', { amount: '12.00', currency: 'USDC' });
    expect(created.statusCode).toBe(201);
    const paymentId = created.json().payment_id as string;
    // An event, written as the pipeline writes them: with a delivery of its own to the endpoint (decision 0058).
    await insertOutboxEvent(h.database.handle.db, {
      id: newEventId(),
      paymentId,
      merchantId,
      type: 'payment.paid',
      payload: '{}',
      createdAt: h.clock.now(),
    });

    const endpointRow = () =>
      page.locator('tr[data-endpoint-delivery]').filter({ hasText: 'https://ledger.example.com/hooks' });
    await page.goto(`${base}/dashboard/payments/${paymentId}`);
    expect(await endpointRow().count()).toBe(1);
    expect(await endpointRow().locator('.status').textContent()).toBe('pending');
    expect(await endpointRow().textContent()).toContain('No attempt yet.');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.goto(`${base}/dashboard/developers`);
    expect(await endpointRow().count()).toBe(1);
    expect(await endpointRow().locator('.status').textContent()).toBe('pending');
  });
});
