import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { DASHBOARD_PASSWORD, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

const TEST_NETWORK = { ...TEST_CHAIN, chainId: 80002 };

/**
 * "New payment" on the merchant's dashboard, over the real app on each database: the form posts through the
 * API's create (its checks, its idempotency, test mode), the link page shows the link, its QR code and its
 * status, and another merchant's payment is a 404.
 */
describe.each(dialects)('dashboard new payment on %s', (dialect) => {
  let h: ApiHarness;
  let shop: { id: string; apiKey: string };
  let otherPayment: string;
  let cookie: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: {
        passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }),
        deposits: { live: depositPlanner(TEST_CHAIN), test: depositPlanner(TEST_NETWORK) },
      },
    });
    shop = await h.merchant({ name: 'Corner Shop' });
    const other = await h.merchant({ name: 'Other Shop' });
    otherPayment = (
      await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': other.apiKey, 'content-type': 'application/json' },
        payload: { amount: '12.00', currency: 'USDC' },
      })
    ).json().payment_id;
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email: 'ana@corner.example', role: 'merchant', merchantId: shop.id },
    );
    await post('/dashboard/set-password', { token, password: DASHBOARD_PASSWORD });
    const signIn = await post('/dashboard/login', {
      email: 'ana@corner.example',
      password: DASHBOARD_PASSWORD,
    });
    cookie = signIn.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
  });
  afterAll(() => h?.close());

  // Forms posted from the dashboard's origin, pages read with the merchant's session (helpers/dashboardClient.ts).
  const post = (url: string, form: Record<string, string>, session?: string) =>
    dashboardClient(h).post(url, form, session);
  const get = (url: string) => dashboardClient(h).get(url, cookie);

  /** The form's hidden fields (CSRF token, idempotency key) as a freshly shown form has them. */
  const freshForm = async (query = '') => {
    const page = await get(`/dashboard/payments/new${query}`);
    expect(page.statusCode).toBe(200);
    return {
      csrf: /name="csrf" value="([^"]+)"/.exec(page.body)![1]!,
      form_key: /name="form_key" value="([^"]+)"/.exec(page.body)![1]!,
    };
  };
  const paymentIdOf = (location: string | undefined) =>
    /^\/dashboard\/payments\/([0-9a-f-]{36})\/link$/.exec(location ?? '')?.[1];

  it('takes a title, a description for the customer and item rows, and marks the row a fault is in', async () => {
    const form = await get('/dashboard/payments/new');
    for (const name of ['title', 'customer_description', 'item_name_1', 'item_quantity_3', 'item_price_2'])
      expect(form.body).toContain(`name="${name}"`);
    expect(form.body).toContain('<label for="item_quantity_2">Item 2: quantity</label>');
    const fields = {
      amount: '54.00',
      currency: 'EUR',
      title: 'Order 1042',
      customer_description: 'Roasted on Monday',
      item_name_1: 'Espresso beans 1 kg',
      item_quantity_1: '2',
      item_price_1: '24.50',
      // A blank row between two filled ones is left out; a row without a quantity is one of it.
      item_name_3: 'Shipping',
      item_price_3: '5.00',
      mode: 'live',
    };
    const created = await post('/dashboard/payments/new', { ...(await freshForm()), ...fields }, cookie);
    expect(created.statusCode).toBe(303);
    const stored = await h.stores.payments.findById(paymentIdOf(created.headers.location)!);
    expect(stored).toMatchObject({ title: 'Order 1042', description: 'Roasted on Monday', metadata: null });
    expect(stored!.lineItems!.map((l) => [l.name, l.quantity, l.unitPrice.minorUnits])).toEqual([
      ['Espresso beans 1 kg', 2, 2450n],
      ['Shipping', 1, 500n],
    ]);

    // A bad quantity in the third row is named in the API's words and marks that row's field; nothing is made.
    const refused = await post(
      '/dashboard/payments/new',
      { ...(await freshForm()), ...fields, item_quantity_3: '0' },
      cookie,
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('line_items[1].quantity: must be an integer from 1 to 1000000');
    expect(refused.body).toMatch(
      /<input id="item_quantity_3" name="item_quantity_3" value="0" [^>]*aria-invalid="true"/,
    );
    const short = await post(
      '/dashboard/payments/new',
      { ...(await freshForm()), ...fields, amount: '50.00' },
      cookie,
    );
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('the lines total 54.00 EUR, the amount is 50.00 EUR');
  });

  it('creates a payment from the form; its link page shows the link, a QR code and its status', async () => {
    const hidden = await freshForm();
    const created = await post(
      '/dashboard/payments/new',
      {
        ...hidden,
        amount: '49.90',
        currency: 'eur',
        description: 'Blue teapot',
        order_id: 'order-7',
        customer_email: 'bo@customer.example',
        success_url: 'https://corner.example/thanks',
        cancel_url: '',
        mode: 'live',
      },
      cookie,
    );
    expect(created.statusCode).toBe(303);
    const id = paymentIdOf(created.headers.location);
    expect(id).toBeDefined();
    const stored = await h.stores.payments.findById(id!);
    expect(stored).toMatchObject({
      merchantId: shop.id,
      mode: 'live',
      orderId: 'order-7',
      customerEmail: 'bo@customer.example',
      successUrl: 'https://corner.example/thanks',
      cancelUrl: null,
      metadata: { description: 'Blue teapot' },
    });
    expect(stored!.quote.amount.currency.code).toBe('EUR');
    // The API reads it as any other payment of the merchant's.
    const status = await h.app.inject({
      method: 'GET',
      url: `/payments/api/status/${id}/`,
      headers: { 'x-api-key': shop.apiKey },
    });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ order_id: 'order-7', metadata: { description: 'Blue teapot' } });

    const page = await get(created.headers.location!);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`value="https://pay.example.test/pay/${id}"`);
    expect(page.body).toContain('data-copy="payment-url"');
    expect(page.body).toContain(`data-share="https://pay.example.test/pay/${id}"`);
    expect(page.body).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="QR code/);
    // The description is labelled as the merchant's own note: it stays out of what the customer receives.
    expect(page.body).toContain(
      'href="mailto:bo@customer.example?subject=Payment%20request%3A%2049.90%20EUR&amp;body=https',
    );
    expect(page.body).toContain('data-share-title="Payment request: 49.90 EUR"');
    expect(page.body).not.toMatch(/(mailto:|data-share-title=")[^"]*Blue/);
    expect((await get('/dashboard/payments/new')).body).toContain(
      '(for you: kept with the payment as metadata)',
    );
    expect(page.body).toContain(`data-poll="/dashboard/payments/${id}/status.json"`);
    expect(page.body).toContain('49.90 EUR');

    expect((await get(`/dashboard/payments/${id}/status.json`)).json()).toEqual({
      status: 'pending',
      label: 'pending',
      final: false,
    });
    await payInFull(h, id!);
    expect((await get(`/dashboard/payments/${id}/status.json`)).json()).toEqual({
      status: 'paid',
      label: 'paid',
      final: true,
    });
  });

  it('the same form posted twice is one payment; a fresh form is another', async () => {
    const hidden = await freshForm();
    const form = { ...hidden, amount: '5.00', currency: 'USDC', mode: 'live' };
    const first = await post('/dashboard/payments/new', form, cookie);
    const again = await post('/dashboard/payments/new', form, cookie);
    expect(first.statusCode).toBe(303);
    expect(again.headers.location).toBe(first.headers.location);
    const fresh = await post('/dashboard/payments/new', { ...form, ...(await freshForm()) }, cookie);
    expect(fresh.statusCode).toBe(303);
    expect(fresh.headers.location).not.toBe(first.headers.location);
  });

  it('in test mode the payment is a test payment, on the test chain', async () => {
    const hidden = await freshForm('?mode=test');
    const created = await post(
      '/dashboard/payments/new',
      { ...hidden, amount: '3.00', currency: 'USDC', mode: 'test' },
      cookie,
    );
    expect(created.statusCode).toBe(303);
    const stored = await h.stores.payments.findById(paymentIdOf(created.headers.location)!);
    expect(stored?.mode).toBe('test');
    expect(stored?.deposit?.chainId).toBe(TEST_NETWORK.chainId);
    const page = await get(created.headers.location!);
    expect(page.body).toContain('Test mode');
  });

  it('refuses bad input with the API’s words and the form kept; without the CSRF token nothing is made', async () => {
    const before = (
      await h.stores.payments.listForMerchant({ merchantId: shop.id, mode: 'live', limit: 100 })
    ).length;
    const hidden = await freshForm();
    const bad = await post(
      '/dashboard/payments/new',
      { ...hidden, amount: '-1', currency: 'USDC', order_id: 'kept-7', success_url: 'javascript:alert(1)' },
      cookie,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('role="alert"');
    expect(bad.body).toContain('amount');
    expect(bad.body).toContain('success_url');
    expect(bad.body).toContain('value="kept-7"');
    expect(bad.body).not.toMatch(/at \S+\.ts:\d+/);
    const forged = await post(
      '/dashboard/payments/new',
      { form_key: hidden.form_key, csrf: 'forged', amount: '5.00', currency: 'USDC' },
      cookie,
    );
    expect(forged.statusCode).toBe(403);
    expect(
      (await h.stores.payments.listForMerchant({ merchantId: shop.id, mode: 'live', limit: 100 })).length,
    ).toBe(before);
  });

  it('another merchant’s payment has no link page and no status for this user', async () => {
    expect((await get(`/dashboard/payments/${otherPayment}/link`)).statusCode).toBe(404);
    const status = await get(`/dashboard/payments/${otherPayment}/status.json`);
    expect(status.statusCode).toBe(404);
    expect(status.json()).toEqual({ error: 'Payment not found', code: 'NOT_FOUND' });
  });
});
