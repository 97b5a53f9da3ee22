import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { addCatalogueItem } from '../../src/app/pos/catalogue.ts';
import { CATALOGUE_LIMITS } from '../../src/domain/posSale.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { type DashboardSession, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';

const TEST_NETWORK = { ...TEST_CHAIN, chainId: 80002 };

/** Every route of an app with its methods, read from the router's tree (`printRoutes` nests a route under its prefix). */
function routesOf(app: FastifyInstance): { method: string; path: string }[] {
  const prefixes: string[] = [];
  const routes: { method: string; path: string }[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + node[2]!;
    prefixes[depth] = path;
    for (const method of node[3]?.split(', ') ?? []) routes.push({ method, path });
  }
  return routes;
}

/** The point of sale's routes: the only ones of the dashboard a PoS user may use (and signing out). */
const POS_ROUTES = new Set([
  'GET /dashboard/pos',
  'POST /dashboard/pos/sales',
  'GET /dashboard/pos/sales/:id',
  'GET /dashboard/pos/sales/:id/status.json',
  'POST /dashboard/pos/sales/:id/receipt',
  'POST /dashboard/logout',
]);
/** Pages for signing in (anyone, signed in or not) and the dashboard's landing, which sends a PoS user on. */
const PUBLIC_ROUTES = new Set([
  'GET /dashboard/login',
  'POST /dashboard/login',
  'GET /dashboard/set-password',
  'POST /dashboard/set-password',
]);

/**
 * The point of sale over the real app on each database (decision 0054): the `pos` role (made like a merchant
 * user, refused with 403 by every dashboard route but the point of sale's), a sale charged from the catalogue
 * and a typed amount as an ordinary payment (idempotent, test mode respected), its status, and the catalogue
 * the merchant manages (stored, bounded, per merchant).
 */
describe.each(dialects)('point of sale on %s', (dialect) => {
  let h: ApiHarness;
  let shop: { id: string; apiKey: string };
  let other: { id: string; apiKey: string };
  let owner: DashboardSession;
  let staff: DashboardSession;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: {
        passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }),
        deposits: { live: depositPlanner(TEST_CHAIN), test: depositPlanner(TEST_NETWORK) },
      },
    });
    shop = await h.merchant({ name: 'Market Stall' });
    other = await h.merchant({ name: 'Other Stall' });
    const client = dashboardClient(h);
    owner = await client.signedIn('owner@stall.example', 'merchant', shop.id);
    staff = await client.signedIn('till@stall.example', 'pos', shop.id);
  });
  afterAll(() => h?.close());

  const userDeps = () => ({ users: h.stores.users, merchants: h.stores.merchants, clock: h.clock });
  const hidden = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(body)?.[1];
  const saleIdOf = (location: string | undefined) =>
    /^\/dashboard\/pos\/sales\/([0-9a-f-]{36})$/.exec(location ?? '')?.[1];

  it('makes a PoS user like a merchant user: it belongs to one merchant', async () => {
    expect(staff.user).toMatchObject({ role: 'pos', merchantId: shop.id });
    await expect(createUser(userDeps(), { email: 'lost@stall.example', role: 'pos' })).rejects.toMatchObject({
      field: 'merchant',
    });
    await expect(
      createUser(userDeps(), { email: 'ghost@stall.example', role: 'pos', merchantId: 'mch_nope' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a PoS session with 403 on every dashboard route but the point of sale', async () => {
    const routes = routesOf(h.app).filter(
      (r) =>
        r.path.startsWith('/dashboard') &&
        !r.path.startsWith('/dashboard/assets/') &&
        (r.method === 'GET' || r.method === 'POST') &&
        !POS_ROUTES.has(`${r.method} ${r.path}`) &&
        !PUBLIC_ROUTES.has(`${r.method} ${r.path}`),
    );
    // The dashboard's pages are all there: a router read wrongly would make this test pass on nothing.
    expect(routes.length).toBeGreaterThan(40);
    const paymentId = (await createApiPayment(shop.apiKey)).payment_id as string;
    const answers: string[] = [];
    for (const { method, path } of routes) {
      const url = path.replace(':id', paymentId);
      const answer = method === 'GET' ? await staff.get(url) : await staff.post(url, {});
      // A form with a field the text rule refuses is refused for who sent it first, not for what it holds.
      if (method === 'POST') {
        const bad = await staff.post(url, { name: 'x\u0000' });
        answers.push(`${method} ${path} with bad text ${bad.statusCode === 403 ? 'ok' : bad.statusCode}`);
      }
      // The landing page sends a PoS user to the point of sale; every other route refuses it.
      const expected = `${method} ${path}` === 'GET /dashboard' ? 303 : 403;
      answers.push(`${method} ${path} ${answer.statusCode === expected ? 'ok' : answer.statusCode}`);
    }
    expect(answers.filter((a) => !a.endsWith(' ok'))).toEqual([]);
    expect((await staff.get('/dashboard')).headers.location).toBe('/dashboard/pos');
    const refused = await staff.get('/dashboard/payments');
    expect(refused.body).toContain('Your account is for the point of sale only.');
    // The same session still works at the counter.
    expect((await staff.get('/dashboard/pos')).statusCode).toBe(200);
  });

  it('lets the merchant manage the catalogue; the PoS user may not', async () => {
    const page = await owner.get('/dashboard/pos/catalogue');
    expect(page.statusCode).toBe(200);
    const added = await owner.post('/dashboard/pos/catalogue', {
      name: 'Coffee',
      unit_price: '2,50',
      currency: 'eur',
    });
    expect(added.statusCode).toBe(303);
    expect(
      (await owner.post('/dashboard/pos/catalogue', { name: 'Bun', unit_price: '1.20', currency: 'EUR' }))
        .statusCode,
    ).toBe(303);
    const bad = await owner.post('/dashboard/pos/catalogue', {
      name: 'Tea',
      unit_price: '1.205',
      currency: 'EUR',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('aria-invalid="true"');
    expect(bad.body).toContain('value="Tea"');
    const items = await h.stores.posCatalogue.list(shop.id);
    expect(items.map((i) => [i.name, i.unitPrice.currency.code, i.unitPrice.minorUnits])).toEqual([
      ['Coffee', 'EUR', 250n],
      ['Bun', 'EUR', 120n],
    ]);
    expect((await staff.get('/dashboard/pos/catalogue')).statusCode).toBe(403);
    expect(
      (await staff.post('/dashboard/pos/catalogue', { name: 'Free', unit_price: '0.01', currency: 'EUR' }))
        .statusCode,
    ).toBe(403);
    expect(await h.stores.posCatalogue.list(shop.id)).toHaveLength(2);
  });

  it('charges a sale from the catalogue and a typed amount as an ordinary payment, once per form', async () => {
    const [coffee, bun] = await h.stores.posCatalogue.list(shop.id);
    const entry = await staff.get('/dashboard/pos');
    expect(entry.body).toContain('Coffee');
    expect(entry.body).not.toContain('Manage the catalogue'); // the merchant's, not the counter's
    const form = {
      sale_key: hidden(entry.body, 'sale_key')!,
      currency: 'EUR',
      amount: '1,30',
      [`qty_${coffee!.id}`]: '2',
      [`qty_${bun!.id}`]: '',
    };
    const first = await staff.post('/dashboard/pos/sales', form);
    expect(first.statusCode).toBe(303);
    const id = saleIdOf(first.headers.location)!;
    // A double tap: the same form again is the same sale.
    const again = await staff.post('/dashboard/pos/sales', form);
    expect(again.headers.location).toBe(first.headers.location);
    const payment = (await h.stores.payments.findById(id))!;
    expect(payment).toMatchObject({
      merchantId: shop.id,
      mode: 'live',
      title: 'Coffee',
      metadata: { channel: 'pos', staff: staff.user.id },
    });
    expect(payment.quote.amount).toMatchObject({ minorUnits: 630n, currency: { code: 'EUR' } });
    // The items as line items adding up to the price, the typed amount a line of its own.
    expect(payment.lineItems?.map((l) => [l.name, l.quantity, l.unitPrice.minorUnits])).toEqual([
      ['Coffee', 2, 250n],
      ['Amount', 1, 130n],
    ]);

    // The API and its webhooks see it as any payment of the merchant's.
    const status = await h.app.inject({
      method: 'GET',
      url: `/payments/api/status/${id}/`,
      headers: { 'x-api-key': shop.apiKey },
    });
    expect(status.json()).toMatchObject({
      status: 'pending',
      title: 'Coffee',
      metadata: { channel: 'pos' },
      line_items: [
        { name: 'Coffee', quantity: 2, unit_price: '2.50' },
        { name: 'Amount', quantity: 1, unit_price: '1.30' },
      ],
    });

    const screen = await staff.get(`/dashboard/pos/sales/${id}`);
    expect(screen.statusCode).toBe(200);
    expect(screen.body).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="QR code to pay/);
    expect(screen.body).toContain(payment.deposit!.depositAddress);
    expect(screen.body).toContain('<code class="pos-exact">6.81</code>'); // 6.30 EUR at 1.08, rounded up
    expect(screen.body).toMatch(/<li><span>2 × Coffee<\/span> <span>5.00 EUR<\/span><\/li>/);
    expect(screen.body).toContain(`data-sale-status="/dashboard/pos/sales/${id}/status.json"`);
    expect((await staff.get(`/dashboard/pos/sales/${id}/status.json`)).json()).toEqual({
      status: 'pending',
      final: false,
    });
    await payInFull(h, id);
    expect((await staff.get(`/dashboard/pos/sales/${id}/status.json`)).json()).toEqual({
      status: 'paid',
      final: true,
    });
    const paid = await staff.get(`/dashboard/pos/sales/${id}`);
    expect(paid.body).toContain('pos-end-paid');
    expect(paid.body).toContain(id.replaceAll('-', '').slice(-8).toUpperCase());
    // The receipt page (the e-mail's), made on demand and shown as a QR code for the customer's phone.
    expect(paid.body).toContain(`action="/dashboard/pos/sales/${id}/receipt"`);
    expect((await staff.post(`/dashboard/pos/sales/${id}/receipt`, {})).statusCode).toBe(303);
    const token = await h.stores.receiptTokens.tokenOf(id);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await h.stores.receiptPages.findPayment(token!))?.id).toBe(id);
    const shown = await staff.get(`/dashboard/pos/sales/${id}`);
    expect(shown.body).toMatch(
      /<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="QR code of the receipt page"/,
    );
    expect(shown.body).not.toContain(`action="/dashboard/pos/sales/${id}/receipt"`);
    // Asked again: the same page, never a second one.
    await staff.post(`/dashboard/pos/sales/${id}/receipt`, {});
    expect(await h.stores.receiptTokens.tokenOf(id)).toBe(token);
    // The merchant's user sees the same sale, and rings up sales too.
    expect((await owner.get(`/dashboard/pos/sales/${id}`)).statusCode).toBe(200);
  });

  it('respects test mode, and refuses what is not a sale of its own with the field named', async () => {
    const fresh = async () => hidden((await staff.get('/dashboard/pos?currency=USDC')).body, 'sale_key')!;
    const test = await staff.post('/dashboard/pos/sales', {
      sale_key: await fresh(),
      currency: 'USDC',
      amount: '3',
      mode: 'test',
    });
    const testId = saleIdOf(test.headers.location)!;
    // Not paid: no receipt page is made for it.
    expect((await staff.post(`/dashboard/pos/sales/${testId}/receipt`, {})).statusCode).toBe(303);
    expect(await h.stores.receiptTokens.tokenOf(testId)).toBeNull();
    // An amount alone: an ordinary payment of that amount, with no lines or title to show.
    expect(await h.stores.payments.findById(testId)).toMatchObject({
      mode: 'test',
      title: null,
      lineItems: null,
    });
    expect((await staff.get(`/dashboard/pos/sales/${testId}`)).body).toContain('>Test</span>');

    const empty = await staff.post('/dashboard/pos/sales', {
      sale_key: await fresh(),
      currency: 'EUR',
      amount: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('type an amount or pick an item');
    const tooPrecise = await staff.post('/dashboard/pos/sales', {
      sale_key: await fresh(),
      currency: 'EUR',
      amount: '10.505',
    });
    expect(tooPrecise.statusCode).toBe(400);
    expect(tooPrecise.body).toMatch(/id="pos-amount"[^>]*aria-invalid="true"/);
    const [coffee] = await h.stores.posCatalogue.list(shop.id);
    const quantity = await staff.post('/dashboard/pos/sales', {
      sale_key: await fresh(),
      currency: 'EUR',
      [`qty_${coffee!.id}`]: '-1',
    });
    expect(quantity.statusCode).toBe(400);
    expect(quantity.body).toContain('quantity: must be a whole number');

    // A payment the merchant made over the API is not the counter's to see, nor another merchant's sale.
    const apiPayment = (await createApiPayment(shop.apiKey)).payment_id as string;
    expect((await staff.get(`/dashboard/pos/sales/${apiPayment}`)).statusCode).toBe(404);
    expect((await staff.get(`/dashboard/pos/sales/${apiPayment}/status.json`)).statusCode).toBe(404);
    const otherSale = (await createApiPayment(other.apiKey)).payment_id as string;
    expect((await staff.get(`/dashboard/pos/sales/${otherSale}`)).statusCode).toBe(404);
  });

  it('stores each merchant’s catalogue apart, in order, bounded, removable only by its merchant', async () => {
    const deps = { catalogue: h.stores.posCatalogue, clock: h.clock };
    const items = [];
    for (let i = 0; i < CATALOGUE_LIMITS.items; i++) {
      h.clock.advance(1);
      items.push(
        await addCatalogueItem(deps, other.id, { name: `Item ${i}`, unitPrice: '1', currency: 'JPY' }),
      );
    }
    await expect(
      addCatalogueItem(deps, other.id, { name: 'One too many', unitPrice: '1', currency: 'JPY' }),
    ).rejects.toMatchObject({ field: 'name' });
    const listed = await h.stores.posCatalogue.list(other.id);
    expect(listed.map((i) => i.name)).toEqual(items.map((i) => i.name));
    expect(listed[0]).toEqual(items[0]);
    expect(await h.stores.posCatalogue.remove(shop.id, items[0]!.id)).toBe(false);
    expect(await h.stores.posCatalogue.remove(other.id, items[0]!.id)).toBe(true);
    expect(await h.stores.posCatalogue.list(other.id)).toHaveLength(CATALOGUE_LIMITS.items - 1);
    expect(await h.stores.posCatalogue.list(shop.id)).toHaveLength(2);
    // Two forms posted at once for the last place: one is taken.
    const last = await Promise.allSettled(
      ['A', 'B'].map((name) => addCatalogueItem(deps, other.id, { name, unitPrice: '1', currency: 'JPY' })),
    );
    expect(last.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await h.stores.posCatalogue.list(other.id)).toHaveLength(CATALOGUE_LIMITS.items);

    const [coffee] = await h.stores.posCatalogue.list(shop.id);
    const removed = await owner.post(`/dashboard/pos/catalogue/${coffee!.id}/remove`, {});
    expect(removed.statusCode).toBe(303);
    expect((await h.stores.posCatalogue.list(shop.id)).map((i) => i.name)).toEqual(['Bun']);
    expect((await owner.post(`/dashboard/pos/catalogue/${coffee!.id}/remove`, {})).statusCode).toBe(404);
  });

  async function createApiPayment(apiKey: string) {
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: { amount: '12.00', currency: 'USDC' },
    });
    return created.json();
  }
});
