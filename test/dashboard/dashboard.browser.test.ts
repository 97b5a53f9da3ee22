import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { paymentReference } from '../../src/domain/paymentReference.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { accessibilityViolations, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { pageTestDialect } from '../helpers/database.ts';
import { freePort, until } from '../helpers/net.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

declare const window: { document: { documentElement: { scrollWidth: number } }; location: { hash: string } };

const PASSWORD = 'correct horse battery staple';

const chromium = useChromium();

/**
 * The dashboard in Chromium over a real server, on each database: the one-time link (its token read from the
 * fragment by the page's script), sign-in by keyboard, the payments list and a payment, sign-out; axe-core finds
 * no serious or critical violation on any of these pages; readable at 390 px.
 */
// A browser test's walk through several pages: a safety net above the busiest machine's need, not a speed limit.
describe.each([pageTestDialect])('dashboard in Chromium on %s', { timeout: 180_000 }, (dialect) => {
  let h: ApiHarness;
  let base: string;
  let paymentId: string;
  let paidId: string;
  let paidDepositAddress: string;
  let shopKey: string;
  let _shopLinkId: string;
  let shopId: string;

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
    shopKey = shop.apiKey;
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': shop.apiKey, 'content-type': 'application/json' },
      payload: { amount: '25.00', currency: 'EUR', order_id: 'order-1042' },
    });
    paymentId = created.json().payment_id;
    const paid = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': shop.apiKey, 'content-type': 'application/json' },
      payload: { amount: '30.00', currency: 'USDC', order_id: 'order-1043' },
    });
    paidId = paid.json().payment_id;
    paidDepositAddress =
      paid.json().address ?? (await h.stores.payments.findById(paidId))!.deposit!.depositAddress;
    await payInFull(h, paidId);
    _shopLinkId = (
      await h.app.inject({
        method: 'POST',
        url: '/payments/api/links/',
        headers: { 'x-api-key': shop.apiKey, 'content-type': 'application/json' },
        payload: {
          title: 'Gift card',
          price_type: 'fixed',
          currency: 'EUR',
          amount: '20.00',
          max_quantity: 4,
        },
      })
    ).json().link_id;
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email: 'ana@corner.example', role: 'merchant', merchantId: shop.id },
    );
    linkToken = token;
  });
  afterAll(() => h?.close());
  let linkToken: string;

  const open = async (path: string, viewport = { width: 1280, height: 900 }) => {
    // A person in Tokyo (UTC+9): times are shown in their zone, with UTC on hover.
    const context = await chromium.browser.newContext({
      viewport,
      locale: 'en-GB',
      timezoneId: 'Asia/Tokyo',
    });
    const page = await context.newPage();
    chromium.watch(page);
    await page.goto(`${base}${path}`);
    return page;
  };

  /**
   * A browser context already signed in as the merchant user: the session cookie of a sign-in made over HTTP (the
   * sign-in form itself is driven by the first test), so later tests spend their time on the page they check.
   */
  const signedInContext = async (
    options: Parameters<Browser['newContext']>[0] = {},
    email = 'ana@corner.example',
  ) => {
    h.clock.advance(5 * 60_000); // the per-account sign-in bucket refills one try per 5 minutes
    const signIn = await h.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      payload: new URLSearchParams({ email, password: PASSWORD }).toString(),
    });
    const cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE);
    if (!cookie) throw new Error(`sign-in answered ${signIn.statusCode}`);
    const context = await chromium.browser.newContext(options);
    await context.addCookies([{ name: cookie.name, value: cookie.value, url: `${base}/dashboard` }]);
    return context;
  };

  it('sets the password from the one-time link, signs in by keyboard, shows the payments and one payment', async () => {
    const setPage = await open(`/dashboard/set-password#${linkToken}`);
    // The script took the token out of the address bar, into the form.
    await expect.poll(() => setPage.evaluate(() => window.location.hash)).toBe('');
    expect(await setPage.locator('input[name="token"]').inputValue()).toBe(linkToken);
    expect(await accessibilityViolations(setPage)).toEqual([]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-set-password.png` });
    await setPage.locator('#password').fill(PASSWORD);
    await setPage.locator('button[type="submit"]').click();
    await setPage.waitForURL(`${base}/dashboard/login?password=set`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('[role="status"]').textContent()).toContain('Your password is set');
    expect(await accessibilityViolations(setPage)).toEqual([]);

    // A wrong password first, then by keyboard only.
    await setPage.locator('#email').fill('ana@corner.example');
    await setPage.locator('#password').fill('not the password at all');
    await setPage.keyboard.press('Enter');
    await setPage.locator('[role="alert"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('[role="alert"]').textContent()).toBe('Wrong e-mail, password or code');
    // The browser logs the 401 answer itself: expected here, and the only one.
    expect(chromium.errors.splice(0)).toEqual([
      'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
    ]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-login-error.png` });
    await setPage.locator('#email').focus();
    await setPage.keyboard.press('Control+A');
    await setPage.keyboard.type('ana@corner.example');
    await setPage.keyboard.press('Tab');
    await setPage.keyboard.type(PASSWORD);
    await setPage.keyboard.press('Enter');
    // A merchant lands on its home page, then opens its payments.
    await setPage.waitForURL(`${base}/dashboard/home`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('h1').textContent()).toBe('Home · Corner Shop');
    await setPage.getByRole('link', { name: 'Payments', exact: true }).click();
    await setPage.waitForURL(`${base}/dashboard/payments`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('h1').textContent()).toBe('Payments · Corner Shop');
    const row = setPage.locator('tbody tr', { hasText: 'order-1042' });
    expect(await setPage.locator('tbody tr').count()).toBe(2);
    expect(await row.locator('td time').getAttribute('title')).toBe('2026-11-21 12:00 UTC');
    expect(await row.locator('td').allTextContents()).toEqual([
      '21 Nov 2026, 21:00 GMT+9',
      paymentReference(paymentId),
      'pending',
      '25.00 EUR',
      '27.00',
      '0.00',
      'order-1042',
    ]);
    expect(await accessibilityViolations(setPage)).toEqual([]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-payments.png`, fullPage: true });

    await setPage.locator(`a[href="/dashboard/payments/${paymentId}"]`).click();
    await setPage.waitForURL(`${base}/dashboard/payments/${paymentId}`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('dl.facts').textContent()).toContain('order-1042');
    expect(await accessibilityViolations(setPage)).toEqual([]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-payment.png`, fullPage: true });

    // Found by its deposit address from the search box, then refunded in part: the claim link to copy.
    await setPage.getByRole('link', { name: 'Payments' }).click();
    await setPage.locator('#q').fill(paidDepositAddress);
    await setPage.keyboard.press('Enter');
    await setPage.waitForURL(`${base}/dashboard/payments/${paidId}`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('ol.timeline').textContent()).toContain(
      'Transfer of 30.00 USDC seen, final',
    );
    await setPage.locator('#refund-amount').fill('12.50');
    await setPage.locator('#refund-reason').fill('one item was missing');
    await setPage.getByRole('button', { name: 'Start refund' }).click();
    await setPage.waitForURL(`${base}/dashboard/payments/${paidId}#refunds`, { timeout: UI_TIMEOUT_MS });
    const claimLink = setPage.locator('ul.refunds input[readonly]');
    expect(await claimLink.inputValue()).toMatch(/^https:\/\/pay\.example\.test\/refunds\/[0-9a-f-]{36}$/);
    expect(await setPage.locator('ul.refunds button[data-copy]').isVisible()).toBe(true);
    expect(await setPage.locator('ul.refunds').textContent()).toContain('12.50 USDC');
    expect(await accessibilityViolations(setPage)).toEqual([]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-refund.png`, fullPage: true });

    await setPage.getByRole('link', { name: 'Developers' }).click();
    await setPage.waitForURL(`${base}/dashboard/developers`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('h1').textContent()).toBe('Developers');
    expect(await accessibilityViolations(setPage)).toEqual([]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-developers.png`, fullPage: true });
    await setPage.getByRole('button', { name: 'Roll test key' }).click();
    await setPage.waitForURL(`${base}/dashboard/developers/roll-key`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('#secret-0').inputValue()).toMatch(/^sk_test_/);
    expect(await accessibilityViolations(setPage)).toEqual([]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-new-key.png`, fullPage: true });

    await setPage.getByRole('link', { name: 'Security' }).click();
    await setPage.waitForURL(`${base}/dashboard/security`, { timeout: UI_TIMEOUT_MS });
    expect(await setPage.locator('img[alt="QR code of your authenticator secret"]').isVisible()).toBe(true);
    expect(await accessibilityViolations(setPage)).toEqual([]);
    await setPage.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-security.png`, fullPage: true });

    await setPage.getByRole('button', { name: 'Sign out' }).click();
    await setPage.waitForURL(`${base}/dashboard/login`, { timeout: UI_TIMEOUT_MS });
    await setPage.goto(`${base}/dashboard/`);
    expect(setPage.url()).toBe(`${base}/dashboard/login`);
    await setPage.context().close();
  });

  it('an operator sees the merchants and the payouts console, accessible', async () => {
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email: 'ops@paylink.example', role: 'operator' },
    );
    const page = await open(`/dashboard/set-password#${token}`);
    await page.locator('#password').fill(PASSWORD);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${base}/dashboard/login?password=set`, { timeout: UI_TIMEOUT_MS });
    await page.locator('#email').fill('ops@paylink.example');
    await page.locator('#password').fill(PASSWORD);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${base}/dashboard/merchants`, { timeout: UI_TIMEOUT_MS });
    expect(await page.locator('h1').textContent()).toBe('Merchants');
    expect(await page.locator('tbody').textContent()).toContain('Corner Shop');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-merchants.png`, fullPage: true });
    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.waitForURL(`${base}/dashboard/payouts`, { timeout: UI_TIMEOUT_MS });
    expect(await page.locator('h1').textContent()).toBe('Delayed payouts');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-payouts.png`, fullPage: true });

    // Each screen of the console, by keyboard-reachable links, each checked by axe.
    for (const [link, heading, shot] of [
      ['Payments', 'Payments', 'all-payments'],
      ['Webhooks', 'Failing webhook endpoints', 'webhooks'],
      ['Health', 'Health', 'health'],
      ['Merchants', 'Merchants', 'merchants'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.locator('h1', { hasText: heading }).waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-${shot}.png`, fullPage: true });
    }
    await page.getByRole('link', { name: 'Corner Shop' }).click();
    await page.locator('h1', { hasText: 'Corner Shop' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator('#commission_percent').inputValue()).toBe('1.5');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-merchant.png`, fullPage: true });
    await page.getByRole('link', { name: 'Merchants', exact: true }).click();
    await page.getByRole('link', { name: 'New merchant' }).click();
    await page.locator('h1', { hasText: 'New merchant' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-new-merchant.png`, fullPage: true });
    await page.locator('#name').fill('Night Market');
    await page.locator('#wallet').fill('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    await page.locator('#webhook_url').fill('https://night.example/hooks');
    await page.getByRole('button', { name: 'Create merchant' }).click();
    await page
      .locator('h1', { hasText: 'Merchant Night Market created' })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator('#secret-0').inputValue()).toMatch(/^sk_live_/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({
      path: `${SCREENSHOTS}/dashboard-${dialect}-merchant-created.png`,
      fullPage: true,
    });
    await page.context().close();
  });

  it('speaks the browser’s language: French, German and Spanish, dates in their own format', async () => {
    for (const [locale, heading, status, refund] of [
      ['fr-FR', 'Paiements · Corner Shop', 'en attente', 'Rembourser ce paiement'],
      ['de-DE', 'Zahlungen · Corner Shop', 'ausstehend', 'Diese Zahlung erstatten'],
      ['es-ES', 'Pagos · Corner Shop', 'pendiente', 'Reembolsar este pago'],
    ] as const) {
      const context = await signedInContext({ locale, timezoneId: 'Europe/Paris' });
      const page = await context.newPage();
      chromium.watch(page);
      await page.goto(`${base}/dashboard/payments`);
      expect(await page.locator('html').getAttribute('lang')).toBe(locale.slice(0, 2));
      expect(await page.locator('h1').textContent()).toBe(heading);
      const row = page.locator('tbody tr', { hasText: 'order-1042' });
      expect(await row.locator('td').nth(2).textContent()).toBe(status);
      // 12:00 UTC is 13:00 in Paris, written the language's way, with its zone named as the language names it.
      const shown = await row.locator('td time').textContent();
      expect(shown).toBe(
        new Intl.DateTimeFormat(locale, {
          day: 'numeric',
          month: 'short',
          year: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
          timeZoneName: 'short',
          timeZone: 'Europe/Paris',
        }).format(new Date('2026-11-21T12:00:00Z')),
      );
      expect(shown).toMatch(/13:00 \S+$/);
      // The same templates as in English (checked on every page there); once more in a language, for its words.
      if (locale === 'fr-FR') expect(await accessibilityViolations(page)).toEqual([]);
      await page.screenshot({
        path: `${SCREENSHOTS}/dashboard-${dialect}-payments-${locale}.png`,
        fullPage: true,
      });
      await page.goto(`${base}/dashboard/payments/${paidId}`);
      expect(await page.locator('form.card h3').textContent()).toBe(refund);
      await context.close();
    }
  });

  it('funds a refund from the browser wallet: exactly what is due, to its deposit address; declined, wrong chain', async () => {
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/refunds/',
      headers: { 'x-api-key': shopKey, 'content-type': 'application/json' },
      payload: {
        payment_id: paidId,
        amount: '7.25',
        currency: 'USDC',
        address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      },
    });
    expect(created.statusCode).toBe(201);
    const refund = created.json() as { deposit_address: string; token_address: string; chain_id: number };
    const TX = `0x${'c4'.repeat(32)}`;
    for (const [behaviour, expected] of [
      ['sends', `Transaction: ${TX}`],
      ['declines', 'You declined in your wallet: nothing was sent.'],
      ['other-chain', `switch it to chain ${refund.chain_id}`],
    ] as const) {
      const context = await signedInContext({ locale: 'en-GB' });
      // A wallet as the page sees one (EIP-1193 on window.ethereum), recording what it is asked.
      await context.addInitScript(
        ({ behaviour, chainId, tx }) => {
          const calls: { method: string; params?: unknown }[] = [];
          (window as unknown as { walletCalls: typeof calls }).walletCalls = calls;
          (window as unknown as { ethereum: unknown }).ethereum = {
            async request({ method, params }: { method: string; params?: unknown }) {
              calls.push({ method, params });
              if (method === 'eth_requestAccounts') return ['0x90f79bf6eb2c4f870365e785982e1f101e93b906'];
              if (method === 'eth_chainId')
                return behaviour === 'other-chain' ? '0x1' : `0x${chainId.toString(16)}`;
              if (method === 'wallet_switchEthereumChain')
                throw Object.assign(new Error('no'), { code: 4902 });
              if (method === 'eth_sendTransaction') {
                if (behaviour === 'declines') throw Object.assign(new Error('User rejected'), { code: 4001 });
                return tx;
              }
              throw new Error(`unexpected ${method}`);
            },
          };
        },
        { behaviour, chainId: refund.chain_id, tx: TX },
      );
      const page = await context.newPage();
      chromium.watch(page);
      await page.goto(`${base}/dashboard/payments/${paidId}`);
      await page.getByRole('button', { name: 'Fund from my browser wallet' }).click();
      const status = page.locator('[data-fund-status]:not([hidden])');
      await status.waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await status.textContent()).toContain(expected);
      if (behaviour === 'sends') {
        const calls = (await page.evaluate(
          () => (window as unknown as { walletCalls: unknown[] }).walletCalls,
        )) as {
          method: string;
          params: { to: string; data: string; value: string }[];
        }[];
        const sent = calls.find((c) => c.method === 'eth_sendTransaction')!.params[0]!;
        expect(sent.to).toBe(refund.token_address);
        expect(sent.value).toBe('0x0');
        expect(sent.data).toBe(
          `0xa9059cbb${refund.deposit_address.slice(2).toLowerCase().padStart(64, '0')}${(7_250_000).toString(16).padStart(64, '0')}`,
        );
        expect(await accessibilityViolations(page)).toEqual([]);
        await page.screenshot({
          path: `${SCREENSHOTS}/dashboard-${dialect}-refund-funding.png`,
          fullPage: true,
        });
      }
      await context.close();
    }
  });

  it('makes a one-off payment link, a fixed-price link with a quantity and a donation link, accessible at 1280 and 390 px', async () => {
    const context = await signedInContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    const page = await context.newPage();
    chromium.watch(page);
    const check = (name: string) => atBothWidths(page, name);

    await page.goto(`${base}/dashboard/payments`);
    await page.getByRole('link', { name: 'New payment' }).click();
    await page.waitForURL(`${base}/dashboard/payments/new`, { timeout: UI_TIMEOUT_MS });
    await check('new-payment');
    await page.getByLabel('Amount').fill('49.90');
    await page.getByLabel('Currency').fill('EUR');
    await page.getByLabel('Description').fill('Blue teapot');
    await page.getByLabel('Order id').fill('order-2001');
    await page.getByLabel('Customer’s e-mail').fill('bo@customer.example');
    await page.getByRole('button', { name: 'Create the link' }).click();
    await page.waitForURL(/\/dashboard\/payments\/[0-9a-f-]{36}\/link$/, { timeout: UI_TIMEOUT_MS });
    const oneOff = /payments\/([0-9a-f-]{36})\/link$/.exec(page.url())![1]!;
    expect(await page.locator('#payment-url').inputValue()).toBe(`https://pay.example.test/pay/${oneOff}`);
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Send by e-mail' }).getAttribute('href')).toMatch(
      // The description is the merchant's note, never in the customer's subject (issue 38).
      /^mailto:bo@customer\.example\?subject=Payment%20request%3A%20/,
    );
    expect(await page.locator('img[alt="QR code of the payment link"]').isVisible()).toBe(true);
    const status = page.locator('[data-poll]');
    expect(await status.textContent()).toBe('pending');
    await check('payment-link');
    // Paid while the page is open: the page's script shows it without a reload.
    await payInFull(h, oneOff);
    await expect.poll(() => status.textContent(), { timeout: UI_TIMEOUT_MS }).toBe('paid');

    await page.getByRole('link', { name: 'Payment pages' }).click();
    await page.waitForURL(`${base}/dashboard/links`, { timeout: UI_TIMEOUT_MS });
    await page.getByRole('link', { name: 'New link' }).click();
    await page.waitForURL(`${base}/dashboard/links/new`, { timeout: UI_TIMEOUT_MS });
    await check('new-link');
    await page.getByLabel('Title').fill('Blue teapot');
    await page.getByLabel('Currency').fill('EUR');
    await page.getByLabel('Fixed price: the customer may pick a quantity').check();
    await page.getByLabel('Unit price (fixed price)').fill('25.00');
    await page.getByLabel('Largest quantity').fill('3');
    await page.getByRole('button', { name: 'Create the link' }).click();
    await page.waitForURL(/\/dashboard\/links\/[0-9a-f-]{36}$/, { timeout: UI_TIMEOUT_MS });
    const fixedLink = /links\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    expect(await page.locator('#link-url').inputValue()).toBe(`https://pay.example.test/l/${fixedLink}`);
    expect(await page.locator('dl.facts').textContent()).toContain('25.00 EUR (up to 3 per payment)');
    await check('link');

    await page.goto(`${base}/dashboard/links/new`);
    await page.getByLabel('Title').fill('Support the band');
    await page.getByLabel('Open amount: the customer types it (donations, tips, invoices)').check();
    await page.getByLabel('Smallest amount').fill('2');
    await page.getByLabel('Largest amount').fill('200');
    await page.getByLabel('Suggested amounts').fill('5 10 20');
    await page.getByRole('button', { name: 'Create the link' }).click();
    await page.waitForURL(/\/dashboard\/links\/[0-9a-f-]{36}$/, { timeout: UI_TIMEOUT_MS });
    expect(await page.locator('dl.facts').textContent()).toContain('5.00, 10.00, 20.00 USDC');

    await page.goto(`${base}/dashboard/links`);
    expect(await page.locator('tbody tr').count()).toBe(3);
    expect(
      await page.locator('tbody tr', { hasText: 'Support the band' }).locator('td').nth(1).textContent(),
    ).toBe('Open amount');
    await check('links');

    // Deactivated from its page: the box ticked, and the browser's confirmation accepted.
    await page.goto(`${base}/dashboard/links/${fixedLink}`);
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByLabel('Yes, stop this link', { exact: true }).check();
    await page.getByRole('button', { name: 'Deactivate this link' }).click();
    await page.locator('.status', { hasText: 'deactivated' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByRole('button', { name: 'Deactivate this link' }).count()).toBe(0);
    await context.close();
  });

  it('makes a restricted key on the developer page, shown once, listed with its scopes and last use, then revoked, accessible at 1280 and 390 px', async () => {
    const context = await signedInContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    const page = await context.newPage();
    chromium.watch(page);
    const developers = `${base}/dashboard/developers`;
    await page.goto(developers);
    await atBothWidths(page, 'developers-keys');
    await page.getByLabel('Name', { exact: true }).fill('Shop plugin');
    await page.getByLabel('payments:read').check();
    await page.getByLabel('payments:write').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL(`${developers}/keys`, { timeout: UI_TIMEOUT_MS });
    await atBothWidths(page, 'restricted-key-shown-once');
    const key = await page.locator('#secret-0').inputValue();
    expect(key).toMatch(/^rk_live_[0-9A-Za-z]{43}$/);
    const withKey = (method: 'GET' | 'POST', url: string) =>
      h.app.inject({
        method,
        url,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        ...(method === 'POST' ? { payload: { amount: '5.00', currency: 'USDC' } } : {}),
      });
    expect((await withKey('POST', '/payments/api/create/')).statusCode).toBe(201);
    expect((await withKey('GET', '/payments/api/refunds/')).json()).toStrictEqual({
      error: 'This restricted API key lacks the scope refunds:read',
      code: 'FORBIDDEN',
    });
    const [record] = (await h.stores.merchants.listKeys(shopId)).filter((k) => k.kind === 'restricted');
    await until(
      'the key recorded as used',
      async () => (await h.stores.merchants.listKeys(shopId)).find((k) => k.id === record?.id)?.lastUsedAt,
      (used) => used != null,
    );

    await page.getByRole('link', { name: 'Done' }).click();
    await page.waitForURL(developers, { timeout: UI_TIMEOUT_MS });
    const row = page.getByRole('row', { name: /Shop plugin/ });
    expect(await row.textContent()).toContain('payments:read, payments:write');
    // Last used is a moment now; the end is "never".
    expect(await row.locator('time').count()).toBe(1);
    await atBothWidths(page, 'developers-with-restricted-key');
    await page.getByRole('button', { name: 'Revoke Shop plugin' }).click();
    await page.waitForURL(developers, { timeout: UI_TIMEOUT_MS });
    expect(await page.getByRole('row', { name: /Shop plugin/ }).count()).toBe(0);
    expect((await withKey('GET', '/payments/api/payments/')).statusCode).toBe(401);
    await context.close();
  });

  /** axe, no sideways scrolling and a screenshot of the page as it is, at the desktop's width and at a phone's. */
  const atBothWidths = async (page: Page, name: string) => {
    for (const [width, suffix] of [
      [1280, ''],
      [390, '-phone'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      expect(await accessibilityViolations(page), `${name} at ${width}`).toEqual([]);
      const widths = await page.evaluate(() => ({
        scroll: window.document.documentElement.scrollWidth,
        inner: (window as unknown as { innerWidth: number }).innerWidth,
      }));
      expect(widths.scroll, `${name} at ${width}`).toBeLessThanOrEqual(widths.inner);
      await page.screenshot({
        path: `${SCREENSHOTS}/dashboard-${dialect}-${name}${suffix}.png`,
        fullPage: true,
      });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  it('a merchant’s home, coloured badges with words, refunds on the timeline, the language picked and kept', async () => {
    // Something waits: the payout of the paid payment is delayed; a refund of it went out to the customer.
    await h.database.handle.db
      .updateTable('payments')
      .set({ payout_blocked_since: h.clock.now().toISOString(), payout_blocked_reason: 'blacklisted' })
      .where('id', '=', paidId)
      .execute();
    const refund = await h.app.inject({
      method: 'POST',
      url: '/payments/api/refunds/',
      headers: { 'x-api-key': shopKey, 'content-type': 'application/json' },
      payload: { payment_id: paidId, amount: '2.00', address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' },
    });
    expect(refund.statusCode).toBe(201);
    const at = new Date(h.clock.now().getTime() + 60_000).toISOString();
    await h.database.handle.db
      .updateTable('payments')
      .set({
        status: 'paid',
        amount_received_base_units: '2000000',
        paid_at: at,
        settled_base_units: '2000000',
        merchant_paid_base_units: '2000000',
        payout_tx_hash: `0x${'ab'.repeat(32)}`,
        settled_at: at,
      })
      .where('id', '=', refund.json().refund_id)
      .execute();

    const context = await signedInContext({ locale: 'en-GB', timezoneId: 'Asia/Tokyo' });
    const page = await context.newPage();
    chromium.watch(page);
    await page.goto(`${base}/dashboard/`);
    await page.waitForURL(`${base}/dashboard/home`, { timeout: UI_TIMEOUT_MS });
    // Every payment of this suite was paid today (the exact sums are checked in dashboardHome.test.ts).
    const [today, month] = await page.locator('.figure').allTextContents();
    expect(today).toMatch(/^\d+\.\d{2} USDC$/);
    expect(month).toBe(today);
    const waiting = page.locator('ul.waiting a');
    expect(await waiting.allTextContents()).toContain('1 payout delayed');
    await atBothWidths(page, 'home');

    // Badges: the status in words, each in a colour of its own.
    const pending = page.locator('.status-pending').first();
    const partly = page.locator('.status-partly-refunded').first();
    expect(await pending.textContent()).toBe('pending');
    expect(await partly.textContent()).toBe('partly refunded');
    const background = (badge: typeof pending) =>
      badge.evaluate(
        (el) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
          ).getComputedStyle(el).backgroundColor,
      );
    expect(await background(pending)).not.toBe(await background(partly));
    expect(await background(pending)).not.toBe('rgba(0, 0, 0, 0)');

    await waiting.getByText('1 payout delayed').click();
    await page.waitForURL(`${base}/dashboard/payments?waiting=payout_delayed`, { timeout: UI_TIMEOUT_MS });
    expect(await page.locator('tbody tr').count()).toBe(1);
    await atBothWidths(page, 'waiting');

    // The payment: its refund's three steps on the timeline; its webhooks one row each.
    await page.locator(`a[href="/dashboard/payments/${paidId}"]`).click();
    await page.waitForURL(`${base}/dashboard/payments/${paidId}`, { timeout: UI_TIMEOUT_MS });
    const timeline = await page.locator('ol.timeline').textContent();
    expect(timeline).toContain('Refund of 2.00 USDC asked for');
    expect(timeline).toContain('Refund of 2.00 USDC funded');
    expect(timeline).toContain('Refund: 2.00 USDC sent to the customer:');
    expect(await page.locator('table.webhooks tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('table.webhooks tbody tr').count()).toBe(
      await page.locator('table.webhooks tbody tr button', { hasText: 'Send again' }).count(),
    );
    await atBothWidths(page, 'payment-timeline');

    // The language switcher: French picked once, then kept by every page after it.
    await page.getByRole('link', { name: 'Français' }).click();
    await page.waitForURL(/\?lang=fr$/, { timeout: UI_TIMEOUT_MS });
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    await page.getByRole('link', { name: 'Paiements', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/payments`, { timeout: UI_TIMEOUT_MS });
    expect(await page.locator('h1').textContent()).toBe('Paiements · Corner Shop');
    const row = page.locator('tbody tr', { hasText: 'order-1042' });
    expect(await row.locator('td').nth(3).textContent()).toBe('25,00 EUR');
    expect(await row.locator('td').nth(4).textContent()).toBe('27,00');
    await atBothWidths(page, 'payments-fr');
    await context.close();
  });

  it('asks an operator to confirm disabling a merchant, by a box that holds without the script too', async () => {
    const context = await signedInContext({ locale: 'en-GB' }, 'ops@paylink.example');
    const page = await context.newPage();
    chromium.watch(page);
    await page.goto(`${base}/dashboard/payments`);
    // Every merchant's payments, each row naming its merchant.
    expect(await page.locator('thead th').allTextContents()).toContain('Merchant');
    expect(await page.locator('tbody tr', { hasText: 'order-1042' }).locator('td').nth(2).textContent()).toBe(
      'Corner Shop',
    );
    await page.goto(`${base}/dashboard/merchants/${shopId}`);
    const disable = page.getByRole('button', { name: 'Disable merchant' });
    expect(await disable.evaluate((el) => el.className)).toBe('danger');
    await atBothWidths(page, 'merchant-disable');
    // Not ticked: the browser does not send the form, nothing changes.
    await disable.click();
    expect(page.url()).toBe(`${base}/dashboard/merchants/${shopId}`);
    expect((await h.stores.merchants.find(shopId))?.status).toBe('active');
    // Ticked, and the script's question accepted: disabled; enabled again for the tests after this one.
    await page.getByLabel('Yes, stop its API keys and sign its users out now').check();
    page.once('dialog', (dialog) => dialog.accept());
    await disable.click();
    await page.getByRole('button', { name: 'Enable merchant' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await h.stores.merchants.find(shopId))?.status).toBe('disabled');
    await page.getByRole('button', { name: 'Enable merchant' }).click();
    await page.getByRole('button', { name: 'Disable merchant' }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await h.stores.merchants.find(shopId))?.status).toBe('active');
    await context.close();
  });

  it('is readable at 390 px wide', async () => {
    const page = await open('/dashboard/login', { width: 390, height: 844 });
    await page.locator('#email').fill('ana@corner.example');
    await page.locator('#password').fill(PASSWORD);
    h.clock.advance(5 * 60_000);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${base}/dashboard/home`, { timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => window.document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.goto(`${base}/dashboard/payments`);
    expect(await page.evaluate(() => window.document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-payments-phone.png`, fullPage: true });
    await page.goto(`${base}/dashboard/payments/${paidId}`);
    expect(await page.evaluate(() => window.document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/dashboard-${dialect}-login-phone.png` });
    await page.context().close();
  });
});
