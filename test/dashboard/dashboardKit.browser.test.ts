import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { paymentReference } from '../../src/domain/paymentReference.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { accessibilityViolations, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { pageTestDialect } from '../helpers/database.ts';
import { freePort } from '../helpers/net.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

declare const getComputedStyle: (element: unknown) => { textDecorationLine: string };
declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelector(selector: string): { scrollWidth: number; clientWidth: number } | null;
};

const PASSWORD = 'correct horse battery staple';
const WIDTHS = [
  [1280, 'desk'],
  [390, 'phone'],
] as const;

const chromium = useChromium();

/**
 * The dashboard's design system in Chromium (issue 38, decision 0053), at 1280 and 390 px: the
 * navigation on one line without underlines on a desk and folded into a menu that opens without a script on a
 * phone; the revenue chart drawn on the server; the search by reference, customer e-mail and order id; a wide
 * table that scrolls inside its own box instead of being cut or widening the page.
 */
describe.each([pageTestDialect])('dashboard design system in Chromium on %s', (dialect) => {
  let h: ApiHarness;
  let base: string;
  let shopId: string;
  let _linkId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    h = await startApiHarness(dialect, {
      env: { PAYLINK_BASE_URL: base },
      overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
    });
    await h.app.listen({ host: '127.0.0.1', port });
    const shop = await h.merchant({ name: 'Corner Shop' });
    shopId = shop.id;
    const headers = { 'x-api-key': shop.apiKey, 'content-type': 'application/json' };
    for (const [amount, orderId, email] of [
      ['25.00', 'order-2001', 'lea@example.fr'],
      ['12.50', 'order-2002', 'Lea@Example.fr'],
      ['40.00', 'order-2003', 'tom@example.com'],
    ] as const) {
      const created = await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers,
        payload: { amount, currency: 'EUR', order_id: orderId, customer_email: email },
      });
      expect(created.statusCode).toBe(201);
      ids.push(created.json().payment_id);
    }
    await payInFull(h, ids[0]!);
    _linkId = (
      await h.app.inject({
        method: 'POST',
        url: '/payments/api/links/',
        headers,
        payload: { title: 'Gift card', price_type: 'fixed', currency: 'EUR', amount: '20.00' },
      })
    ).json().link_id;
  });
  afterAll(() => h?.close());

  /** A browser context signed in as a new user of the role (the sign-in form is the other browser test's). */
  const signedIn = async (email: string, role: 'merchant' | 'operator'): Promise<BrowserContext> => {
    const form = (url: string, fields: Record<string, string>) =>
      h.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
        payload: new URLSearchParams(fields).toString(),
      });
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email, role, ...(role === 'merchant' ? { merchantId: shopId } : {}) },
    );
    await form('/dashboard/set-password', { token, password: PASSWORD });
    h.clock.advance(5 * 60_000);
    const signIn = await form('/dashboard/login', { email, password: PASSWORD });
    const cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE);
    if (!cookie) throw new Error(`sign-in answered ${signIn.statusCode}`);
    const context = await chromium.browser.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
    await context.addCookies([{ name: cookie.name, value: cookie.value, url: `${base}/dashboard` }]);
    return context;
  };

  /** The page at both widths: axe finds nothing, and the page itself never scrolls sideways. */
  const checkedAtBothWidths = async (page: Page, name: string) => {
    for (const [width, label] of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page), `${name} at ${width}`).toEqual([]);
      const sizes = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(sizes.scroll, `${name} at ${width}`).toBeLessThanOrEqual(sizes.client);
      await page.screenshot({ path: `${SCREENSHOTS}/kit-${dialect}-${name}-${label}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('keeps the navigation on one line without underlines at 1280 px, and folds it into a menu at 768 and 390 px', async () => {
    const context = await signedIn('nav@corner.example', 'merchant');
    const page = chromium.watch(await context.newPage());
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/dashboard/payments`);
    const links = page.locator('header nav.main.wide a');
    expect(await links.count()).toBe(8);
    // Every entry shown whole: the bar does not scroll at a desk's width (the account's address gives way first).
    expect(
      await page.locator('header nav.main.wide').evaluate((nav) => nav.scrollWidth <= nav.clientWidth),
    ).toBe(true);
    const boxes = await Promise.all((await links.all()).map((link) => link.boundingBox()));
    expect(new Set(boxes.map((box) => box!.y)).size).toBe(1);
    for (const link of await links.all())
      expect(await link.evaluate((a) => getComputedStyle(a).textDecorationLine)).toBe('none');
    expect(await page.locator('header nav.main.wide a[aria-current="page"]').textContent()).toBe('Payments');
    expect(await page.locator('details.menu').isVisible()).toBe(false);

    // A tablet gets the menu too: eight entries and the account do not fit its width.
    await page.setViewportSize({ width: 768, height: 900 });
    expect(await page.locator('details.menu').isVisible()).toBe(true);
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.locator('header nav.main.wide').isVisible()).toBe(false);
    const menu = page.locator('details.menu summary');
    expect(await menu.isVisible()).toBe(true);
    await menu.click();
    const home = page.locator('details.menu nav.main a', { hasText: 'Home' });
    expect(await home.isVisible()).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/kit-${dialect}-menu-open-phone.png`, fullPage: true });
    await home.click();
    await page.waitForURL(`${base}/dashboard/home`, { timeout: UI_TIMEOUT_MS });
    await context.close();
  });

  it('draws the revenue chart on the server, an image with its name and its figures as a table, at both widths', async () => {
    const context = await signedIn('chart@corner.example', 'merchant');
    // The chart needs no script: it is drawn with the page's script blocked.
    await context.route('**/*.js', (route) => route.abort());
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/home`);
    const chart = page.getByRole('img', { name: 'Paid in the last 30 days' });
    for (const [width] of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      expect(await chart.isVisible()).toBe(true);
      const box = (await chart.boundingBox())!;
      expect(box.width).toBeGreaterThan(width / 2);
      expect(box.width).toBeLessThanOrEqual(width);
    }
    expect(await page.locator('svg.revenue rect.bar:not(.empty)').count()).toBe(1);
    await page.getByText('Show as a table').click();
    const today = page.locator('section.chart tbody tr').last();
    expect(await today.locator('td').allTextContents()).toEqual(['21 Nov', '27.00', '1']);
    await context.close();
    const scripted = await signedIn('chart2@corner.example', 'merchant');
    const checked = chromium.watch(await scripted.newPage());
    await checked.goto(`${base}/dashboard/home`);
    await checkedAtBothWidths(checked, 'home');
    await scripted.close();
  });

  it('finds payments by customer e-mail, reference and order id from the search box, at both widths', async () => {
    const context = await signedIn('search@corner.example', 'merchant');
    const page = chromium.watch(await context.newPage());
    for (const [width] of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/dashboard/payments`);
      // Two payments of one customer, whatever the letter case it was given in.
      await page.locator('#q').fill('LEA@example.FR');
      await page.keyboard.press('Enter');
      await page.waitForURL(/q=LEA/, { timeout: UI_TIMEOUT_MS });
      const found = page.locator('tbody tr a.reference');
      expect((await found.allTextContents()).sort()).toEqual(
        [paymentReference(ids[0]!), paymentReference(ids[1]!)].sort(),
      );
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({
        path: `${SCREENSHOTS}/kit-${dialect}-search-email-${width}.png`,
        fullPage: true,
      });

      // One payment found: its page, named by its reference (typed in lower case, without dashes).
      await page.locator('#q').fill(paymentReference(ids[2]!).toLowerCase().replaceAll('-', ''));
      await page.keyboard.press('Enter');
      await page.waitForURL(`${base}/dashboard/payments/${ids[2]}`, { timeout: UI_TIMEOUT_MS });
      expect(await page.locator('h1').textContent()).toContain(paymentReference(ids[2]!));
      expect(await page.locator('dl.facts').textContent()).toContain(ids[2]!);

      await page.goto(`${base}/dashboard/payments`);
      await page.locator('#q').fill('order-2002');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${base}/dashboard/payments/${ids[1]}`, { timeout: UI_TIMEOUT_MS });
    }
    await context.close();
  });

  it('scrolls a wide table inside its own box on a phone, and shows the whole table at 1280 px', async () => {
    const context = await signedIn('table@corner.example', 'merchant');
    const page = chromium.watch(await context.newPage());
    await page.goto(`${base}/dashboard/payments`);
    const measure = () =>
      page.evaluate(() => {
        const box = document.querySelector('main .table-wrap')!;
        return {
          box: { scroll: box.scrollWidth, client: box.clientWidth },
          page: {
            scroll: document.documentElement.scrollWidth,
            client: document.documentElement.clientWidth,
          },
        };
      });
    await page.setViewportSize({ width: 1280, height: 900 });
    const desk = await measure();
    expect(desk.box.scroll).toBeLessThanOrEqual(desk.box.client);
    expect(desk.page.scroll).toBeLessThanOrEqual(desk.page.client);
    await page.setViewportSize({ width: 390, height: 900 });
    const phone = await measure();
    expect(phone.box.scroll).toBeGreaterThan(phone.box.client);
    expect(phone.page.scroll).toBeLessThanOrEqual(phone.page.client);
    // The box is a focusable region, so a keyboard scrolls it too.
    const wrap = page.locator('main .table-wrap');
    await wrap.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => wrap.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    await context.close();
  });

  // Every page that `npm run screenshots` takes passes axe at its widths in test/sandbox/everyPage.e2e.test.ts;
  // the one page it cannot take is the refusal, a 404.
  it('passes axe at 1280 and 390 px on the page that refuses a link of another merchant', async () => {
    const context = await signedIn('axe@corner.example', 'merchant');
    const page = chromium.watch(await context.newPage());
    const refused = await page.goto(`${base}/dashboard/links/00000000-0000-4000-8000-000000000000`);
    expect(refused?.status()).toBe(404);
    await checkedAtBothWidths(page, 'not-found');
    // The refusal page's 404 is logged by the browser itself: expected there, and only there.
    expect(chromium.errors.splice(0)).toEqual([
      'console: Failed to load resource: the server responded with a status of 404 (Not Found)',
    ]);
    await context.close();
  });
});
