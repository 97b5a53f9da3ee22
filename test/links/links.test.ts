import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { expirePayments } from '../../src/app/chain/refreshPayments.ts';
import { payLink } from '../../src/app/links/payLink.ts';
import { rotateApiKey } from '../../src/app/merchants/merchantAdmin.ts';
import { type ApiHarness, payLinkDeps, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

/**
 * Issue 28 on the merchant API over a real socket: success_url, cancel_url and metadata on payments, and
 * reusable links (create, list, show, deactivate, a payment from a link), on SQLite and PostgreSQL.
 */
describe.each(dialects)('payment links and redirects on %s', (dialect) => {
  let h: ApiHarness;
  let base: string;
  let apiKey: string;
  let myId: string;
  let otherKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey, id: myId } = await h.merchant({ name: 'Corner Shop' }));
    otherKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => h.close());

  const call = async (method: string, path: string, body?: unknown, key = apiKey) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Body };
  };
  const createPayment = (fields: Body, key = apiKey) =>
    call('POST', '/payments/api/create/', { amount: '10.00', currency: 'USDC', ...fields }, key);
  const createLink = (fields: Body, key = apiKey) =>
    call('POST', '/payments/api/links/', { title: 'Coffee', ...fields }, key);
  const payLinkOverHttp = (id: string, fields: Body, key = apiKey) =>
    call('POST', `/payments/api/links/${id}/payments/`, fields, key);
  const expectInvalid = (answer: { status: number; body: Body }, field: string) => {
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details.map((d: Body) => d.field)).toContain(field);
  };
  /** Marks a payment paid as the watcher would have stored it (the totals read stored payments). */
  const markPaid = async (paymentId: string, baseUnits: bigint) => {
    await h.database.handle.db
      .updateTable('payments')
      .set({ status: 'paid', amount_received_base_units: baseUnits.toString() })
      .where('id', '=', paymentId)
      .execute();
  };

  describe('success_url, cancel_url and metadata on payments', () => {
    it('returns the URLs with the payment id merged into their query, and the metadata, in status, list and export', async () => {
      const metadata = { cart_id: 'c-1', 'customer.ref': 'Ünïcode ✓' };
      const created = await createPayment({
        success_url: 'https://shop.example/thanks?order=7#top',
        cancel_url: 'https://shop.example/cart',
        metadata,
        order_id: 'redirects-1',
      });
      expect(created.status).toBe(201);
      const id = created.body.payment_id;
      const status = await call('GET', `/payments/api/status/${id}/`);
      expect(status.body.success_url).toBe(`https://shop.example/thanks?order=7&payment_id=${id}#top`);
      expect(status.body.cancel_url).toBe(`https://shop.example/cart?payment_id=${id}`);
      expect(status.body.metadata).toEqual(metadata);
      expect(status.body.link_id).toBeUndefined();

      const listed = await call('GET', '/payments/api/payments/?order_id=redirects-1');
      expect(listed.body.payments[0].metadata).toEqual(metadata);
      expect(listed.body.payments[0].success_url).toBe(status.body.success_url);

      const csv = await call('GET', '/payments/api/payments/export/');
      const [header, ...rows] = csv.text.trim().split('\r\n');
      const columns = header!.split(',');
      const linkColumns = columns.indexOf('link_id');
      expect(columns.slice(linkColumns, linkColumns + 4)).toEqual([
        'link_id',
        'success_url',
        'cancel_url',
        'metadata',
      ]);
      const row = rows.find((line) => line.startsWith(id))!;
      expect(row).toContain(`https://shop.example/thanks?order=7&payment_id=${id}#top`);
      expect(row).toContain('"{""cart_id"":""c-1"",""customer.ref"":""Ünïcode ✓""}"');
    });

    it('leaves them out of a payment created without them', async () => {
      const created = await createPayment({});
      const status = await call('GET', `/payments/api/status/${created.body.payment_id}/`);
      expect(status.status).toBe(200);
      expect(Object.keys(status.body)).not.toContain('metadata');
      expect(Object.keys(status.body)).not.toContain('success_url');
    });

    it('takes a URL of 2048 characters and refuses one of 2049, plain http, and credentials', async () => {
      const prefix = 'https://shop.example/?q=';
      const longest = prefix + 'a'.repeat(2048 - prefix.length);
      const accepted = await createPayment({ success_url: longest });
      expect(accepted.status).toBe(201);
      expectInvalid(await createPayment({ success_url: `${longest}a` }), 'success_url');
      expectInvalid(await createPayment({ cancel_url: `${longest}a` }), 'cancel_url');
      expectInvalid(await createPayment({ success_url: 'http://shop.example/thanks' }), 'success_url');
      expectInvalid(await createPayment({ cancel_url: 'javascript:alert(1)' }), 'cancel_url');
      expectInvalid(await createPayment({ success_url: 'https://user:pw@shop.example/' }), 'success_url');
    });

    it('takes metadata at its limits and refuses one past each', async () => {
      const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v']));
      const longKey = 'k'.repeat(40);
      const ok = await createPayment({
        metadata: { ...twenty, ...{} },
      });
      expect(ok.status).toBe(201);
      const edge = await createPayment({ metadata: { [longKey]: 'x'.repeat(500) } });
      expect(edge.status).toBe(201);
      const status = await call('GET', `/payments/api/status/${edge.body.payment_id}/`);
      expect(status.body.metadata[longKey]).toHaveLength(500);

      expectInvalid(await createPayment({ metadata: { ...twenty, k20: 'v' } }), 'metadata');
      expectInvalid(await createPayment({ metadata: { [`${longKey}k`]: 'v' } }), 'metadata');
      expectInvalid(await createPayment({ metadata: { 'bad key': 'v' } }), 'metadata');
      expectInvalid(await createPayment({ metadata: { ref: 'x'.repeat(501) } }), 'metadata.ref');
      expectInvalid(await createPayment({ metadata: { ref: 'a\u0007b' } }), 'metadata.ref');
      expectInvalid(await createPayment({ metadata: { ref: 12 } }), 'metadata.ref');
      expectInvalid(await createPayment({ metadata: ['a'] }), 'metadata');
      expectInvalid(await createPayment({ metadata: 'a' }), 'metadata');
    });
  });

  describe('reusable links', () => {
    it('creates a fixed-price link with a quantity, and pays it for a chosen quantity within bounds', async () => {
      const created = await createLink({
        price_type: 'fixed',
        amount: 4.5,
        currency: 'EUR',
        max_quantity: 3,
        description: 'A cup of coffee',
        image_url: 'https://shop.example/coffee.png',
        success_url: 'https://shop.example/thanks',
        metadata: { sku: 'coffee' },
      });
      expect(created.status).toBe(201);
      const link = created.body;
      expect(link).toMatchObject({
        url: `https://pay.example.test/l/${link.link_id}`,
        title: 'Coffee',
        description: 'A cup of coffee',
        merchant_name: 'Corner Shop',
        price_type: 'fixed',
        currency: 'EUR',
        amount: '4.50',
        max_quantity: 3,
        active: true,
        livemode: true,
        metadata: { sku: 'coffee' },
      });
      // A link alone creates no payment.
      const before = await h.database.handle.db
        .selectFrom('payments')
        .select('id')
        .where('link_id', '=', link.link_id)
        .execute();
      expect(before).toHaveLength(0);

      const paid = await payLinkOverHttp(link.link_id, { quantity: 3 });
      expect(paid.status).toBe(201);
      expect(paid.body.details).toMatchObject({ amount: '13.50', currency: 'EUR' });
      expect(paid.body.details.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const id = paid.body.payment_id;
      const status = await call('GET', `/payments/api/status/${id}/`);
      expect(status.body.link_id).toBe(link.link_id);
      expect(status.body.metadata).toEqual({ sku: 'coffee' });
      expect(status.body.success_url).toBe(`https://shop.example/thanks?payment_id=${id}`);
      expect((await payLinkOverHttp(link.link_id, {})).body.details.amount).toBe('4.50');

      expectInvalid(await payLinkOverHttp(link.link_id, { quantity: 4 }), 'quantity');
      expectInvalid(await payLinkOverHttp(link.link_id, { quantity: 0 }), 'quantity');
      expectInvalid(await payLinkOverHttp(link.link_id, { amount: '1.00' }), 'amount');
    });

    it('takes an open amount exactly at its minimum and maximum and refuses one base unit outside', async () => {
      const created = await createLink({
        price_type: 'open',
        currency: 'USDC',
        min_amount: '5.00',
        max_amount: '10.00',
        suggested_amounts: ['5', 7.5, '10'],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        min_amount: '5.00',
        max_amount: '10.00',
        suggested_amounts: ['5.00', '7.50', '10.00'],
        amount: null,
      });
      const id = created.body.link_id;
      expect((await payLinkOverHttp(id, { amount: '5.00' })).body.details.usdc_amount).toBe('5.00');
      expect((await payLinkOverHttp(id, { amount: '10.000000' })).body.details.usdc_amount).toBe('10.00');
      expectInvalid(await payLinkOverHttp(id, { amount: '4.999999' }), 'amount');
      expectInvalid(await payLinkOverHttp(id, { amount: '10.000001' }), 'amount');
      expectInvalid(await payLinkOverHttp(id, {}), 'amount');
      expectInvalid(await payLinkOverHttp(id, { amount: '7', quantity: 2 }), 'quantity');
    });

    it('refuses a link whose price or fields do not hold', async () => {
      expectInvalid(await createLink({ price_type: 'fixed', currency: 'EUR' }), 'amount');
      expectInvalid(await createLink({ price_type: 'open', currency: 'EUR', min_amount: 5 }), 'max_amount');
      expectInvalid(
        await createLink({ price_type: 'open', currency: 'EUR', min_amount: 5, max_amount: 4 }),
        'max_amount',
      );
      expectInvalid(
        await createLink({
          price_type: 'open',
          currency: 'EUR',
          min_amount: 5,
          max_amount: 10,
          suggested_amounts: ['11'],
        }),
        'suggested_amounts',
      );
      expectInvalid(await createLink({ price_type: 'other', currency: 'EUR' }), 'price_type');
      expectInvalid(
        await createLink({ title: '', price_type: 'fixed', amount: 1, currency: 'EUR' }),
        'title',
      );
      expectInvalid(
        await createLink({
          price_type: 'fixed',
          amount: 1,
          currency: 'EUR',
          image_url: 'http://x.example/a.png',
        }),
        'image_url',
      );
      expectInvalid(
        await createLink({ price_type: 'fixed', amount: 1, currency: 'EUR', max_quantity: 1001 }),
        'max_quantity',
      );
      expectInvalid(
        await createLink({
          price_type: 'fixed',
          amount: 1,
          currency: 'EUR',
          ends_at: '2000-01-01T00:00:00Z',
        }),
        'ends_at',
      );
      expectInvalid(
        await createLink({
          price_type: 'fixed',
          amount: 1,
          currency: 'EUR',
          metadata: { ref: 'x'.repeat(501) },
        }),
        'metadata.ref',
      );
    });

    it('stops taking payments once its uses are taken, and again when an abandoned one expires', async () => {
      const link = (await createLink({ price_type: 'fixed', amount: 1, currency: 'USDC', max_uses: 1 })).body;
      const first = await payLinkOverHttp(link.link_id, {});
      expect(first.status).toBe(201);
      const second = await payLinkOverHttp(link.link_id, {});
      expect(second.status).toBe(409);
      expect(second.body).toEqual({
        error: 'This payment link has reached its limit of uses',
        code: 'LINK_UNAVAILABLE',
      });
      // Paid, it still counts.
      await markPaid(first.body.payment_id, 1_000_000n);
      expect((await payLinkOverHttp(link.link_id, {})).status).toBe(409);
    });

    it('gives the last places to as many payers as there are, however many commit at once', async () => {
      const link = (await createLink({ price_type: 'fixed', amount: 1, currency: 'USDC', max_uses: 3 })).body;
      const answers = await Promise.all(Array.from({ length: 8 }, () => payLinkOverHttp(link.link_id, {})));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
      expect(answers.filter((a) => a.status === 409).map((a) => a.body.code)).toEqual(
        Array(5).fill('LINK_UNAVAILABLE'),
      );
      const stored = await h.database.handle.db
        .selectFrom('payments')
        .select('id')
        .where('link_id', '=', link.link_id)
        .execute();
      expect(stored).toHaveLength(3);
    });

    it('frees the place of an abandoned payment once it expires', async () => {
      const link = (await createLink({ price_type: 'fixed', amount: 1, currency: 'USDC', max_uses: 1 })).body;
      expect((await payLinkOverHttp(link.link_id, {})).status).toBe(201);
      expect((await payLinkOverHttp(link.link_id, {})).status).toBe(409);
      h.clock.advance(2 * 60 * 60_000);
      expect((await payLinkOverHttp(link.link_id, {})).status).toBe(201);
    });

    it('takes no payment from its end date on, nor once deactivated', async () => {
      const endsAt = new Date(h.clock.now().getTime() + 60 * 60_000);
      const ending = (
        await createLink({ price_type: 'fixed', amount: 1, currency: 'USDC', ends_at: endsAt.toISOString() })
      ).body;
      expect(ending.ends_at).toBe(endsAt.toISOString());
      expect((await payLinkOverHttp(ending.link_id, {})).status).toBe(201);
      h.clock.set(endsAt);
      const ended = await payLinkOverHttp(ending.link_id, {});
      expect(ended.status).toBe(409);
      expect(ended.body.error).toBe('This payment link has ended');

      const link = (await createLink({ price_type: 'fixed', amount: 1, currency: 'USDC' })).body;
      const deactivated = await call('POST', `/payments/api/links/${link.link_id}/deactivate/`);
      expect(deactivated.status).toBe(200);
      expect(deactivated.body.active).toBe(false);
      expect(deactivated.body.deactivated_at).toBe(h.clock.now().toISOString());
      const refused = await payLinkOverHttp(link.link_id, {});
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('This payment link has been deactivated');
      // A second deactivation keeps the first moment.
      h.clock.advance(1000);
      const again = await call('POST', `/payments/api/links/${link.link_id}/deactivate/`);
      expect(again.body.deactivated_at).toBe(deactivated.body.deactivated_at);
    });

    it('shows how many payments paid through the link and the USDC they brought', async () => {
      const link = (
        await createLink({ price_type: 'open', currency: 'USDC', min_amount: 1, max_amount: 100 })
      ).body;
      const a = await payLinkOverHttp(link.link_id, { amount: '12.25' });
      const b = await payLinkOverHttp(link.link_id, { amount: '30' });
      await payLinkOverHttp(link.link_id, { amount: '2' });
      await markPaid(a.body.payment_id, 12_250_000n);
      await markPaid(b.body.payment_id, 30_000_001n);
      const shown = await call('GET', `/payments/api/links/${link.link_id}/`);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ payments_paid: 2, amount_paid: '42.250001' });
      // Each payment under its link: the list filtered by link_id, paged like any list.
      const listed = await call('GET', `/payments/api/payments/?link_id=${link.link_id}&limit=2`);
      expect(listed.body.payments.map((p: Body) => p.link_id)).toEqual([link.link_id, link.link_id]);
      const rest = await call(
        'GET',
        `/payments/api/payments/?link_id=${link.link_id}&limit=2&cursor=${listed.body.next_cursor}`,
      );
      // Created at one moment of the test clock: their order among themselves is the ids', not asserted.
      const amounts = [...listed.body.payments, ...rest.body.payments].map((p: Body) => p.amount);
      expect(amounts.sort()).toEqual(['12.25', '2.00', '30.00']);
      expect(rest.body.next_cursor).toBeNull();
      // A cursor of the unfiltered list is not one of the link's.
      const unfiltered = await call('GET', '/payments/api/payments/?limit=1');
      const mixed = await call(
        'GET',
        `/payments/api/payments/?link_id=${link.link_id}&cursor=${unfiltered.body.next_cursor}`,
      );
      expect(mixed.status).toBe(400);
    });

    it("finds no link of another merchant's, and lists one's own newest first page by page", async () => {
      h.clock.advance(1); // the newest link by its created_at, whatever the ids drawn in one millisecond
      const mine = (await createLink({ price_type: 'fixed', amount: 1, currency: 'USDC' })).body;
      for (const [method, path, body] of [
        ['GET', `/payments/api/links/${mine.link_id}/`, undefined],
        ['POST', `/payments/api/links/${mine.link_id}/deactivate/`, undefined],
        ['POST', `/payments/api/links/${mine.link_id}/payments/`, {}],
      ] as const) {
        const answer = await call(method, path, body, otherKey);
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual({ error: 'Payment link not found', code: 'NOT_FOUND' });
      }
      expect((await call('GET', '/payments/api/links/', undefined, otherKey)).body.links).toEqual([]);

      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: Body } = await call(
          'GET',
          `/payments/api/links/?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        all.push(...page.body.links.map((l: Body) => l.link_id));
        cursor = page.body.next_cursor;
      } while (cursor !== null);
      expect(all[0]).toBe(mine.link_id);
      expect(new Set(all).size).toBe(all.length);
      const stored = await h.database.handle.db
        .selectFrom('payment_links')
        .select('id')
        .where('merchant_id', '=', myId)
        .execute();
      expect(all.sort()).toEqual(stored.map((row) => row.id).sort());
      // A cursor of this merchant's is no cursor for another.
      const page = await call('GET', '/payments/api/links/?limit=1');
      const replayed = await call(
        'GET',
        `/payments/api/links/?cursor=${page.body.next_cursor}`,
        undefined,
        otherKey,
      );
      expect(replayed.status).toBe(400);
    });

    it('creates a payment from a link through the use case itself, with the pipeline of any create', async () => {
      const link = (
        await createLink({
          price_type: 'open',
          currency: 'EUR',
          min_amount: '1.00',
          max_amount: '50.00',
          metadata: { campaign: 'winter' },
          max_uses: 2,
        })
      ).body;
      const deps = payLinkDeps(h, { PAYLINK_RATES: 'static:EUR=1.08' });
      const merchant = (await h.stores.merchants.find(myId))!;
      const payment = await payLink(deps, merchant, link.link_id, 'live', { amount: '10.00' });
      expect(payment).toMatchObject({ linkId: link.link_id, metadata: { campaign: 'winter' }, mode: 'live' });
      expect(payment.quote.usdcBaseUnits).toBe(10_800_000n);
      expect(payment.deposit?.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(payment.expiresAt.getTime() - h.clock.now().getTime()).toBe(30 * 60_000);
      const stored = await h.stores.payments.findForMerchant(myId, payment.id, 'live');
      expect(stored?.linkId).toBe(link.link_id);
      // Below PAYLINK_MIN_AMOUNT after conversion, as any create: the link's bounds do not lift the service's.
      await expect(payLink(deps, merchant, link.link_id, 'live', { amount: '0.40' })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
      // Another mode's key finds no live link.
      await expect(payLink(deps, merchant, link.link_id, 'test', { amount: '10.00' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    });

    it('counts the uses again as the payment goes in, however old the first count', async () => {
      const link = (await createLink({ price_type: 'fixed', amount: 1, currency: 'USDC', max_uses: 1 })).body;
      // A first count that always finds the link unused: what two payers committing together both read.
      const links = { ...h.stores.links, usage: async () => ({ paid: 0, open: 0 }) };
      const deps = { ...payLinkDeps(h), links };
      const merchant = (await h.stores.merchants.find(myId))!;
      await payLink(deps, merchant, link.link_id, 'live', {});
      await expect(payLink(deps, merchant, link.link_id, 'live', {})).rejects.toMatchObject({
        code: 'LINK_UNAVAILABLE',
        message: 'This payment link has reached its limit of uses',
      });
    });

    it("tells the link, the URLs and the metadata in the payment's webhook", async () => {
      const link = (
        await createLink({
          price_type: 'fixed',
          amount: '3',
          currency: 'USDC',
          success_url: 'https://shop.example/done?x=1',
          cancel_url: 'https://shop.example/back',
          metadata: { table: '12' },
        })
      ).body;
      const paymentId = (await payLinkOverHttp(link.link_id, {})).body.payment_id;
      h.clock.advance(24 * 60 * 60_000);
      await expirePayments({ ledger: h.stores.ledger, clock: h.clock });
      const event = await h.database.handle.db
        .selectFrom('events')
        .select(['type', 'payload'])
        .where('payment_id', '=', paymentId)
        .executeTakeFirstOrThrow();
      expect(event.type).toBe('payment.expired');
      expect(JSON.parse(event.payload)).toMatchObject({
        link_id: link.link_id,
        metadata: { table: '12' },
        success_url: `https://shop.example/done?x=1&payment_id=${paymentId}`,
        cancel_url: `https://shop.example/back?payment_id=${paymentId}`,
      });
    });

    it('answers 404 for an id that is no link', async () => {
      const bad = await call('GET', '/payments/api/links/not-a-link/');
      expect(bad.status).toBe(404);
    });
  });
});

describe.each(dialects)('payment links in test mode on %s', (dialect) => {
  let h: ApiHarness;
  let base: string;
  let liveKey: string;
  let testKey: string;
  const AMOY_CHAIN = {
    chainId: 80002,
    tokenAddress: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
    factoryAddress: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
    treasuryAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  } as const;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: { deposits: { live: depositPlanner(TEST_CHAIN), test: depositPlanner(AMOY_CHAIN) } },
    });
    const merchant = await h.merchant();
    liveKey = merchant.apiKey;
    testKey = (
      await rotateApiKey(
        { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false },
        merchant.id,
        0,
        'test',
      )
    ).apiKey;
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => h.close());

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Body };
  };

  it("makes a test key's link a test link, paid on the test chain, unseen by the live key", async () => {
    const link = await call('POST', '/payments/api/links/', testKey, {
      title: 'Test coffee',
      price_type: 'fixed',
      amount: '2',
      currency: 'USDC',
    });
    expect(link.status).toBe(201);
    expect(link.body.livemode).toBe(false);
    const id = link.body.link_id;
    const paid = await call('POST', `/payments/api/links/${id}/payments/`, testKey, {});
    expect(paid.status).toBe(201);
    expect(paid.body.details.chain_id).toBe(80002);

    expect((await call('GET', `/payments/api/links/${id}/`, liveKey)).status).toBe(404);
    expect((await call('POST', `/payments/api/links/${id}/payments/`, liveKey, {})).status).toBe(404);
    expect((await call('GET', '/payments/api/links/', liveKey)).body.links).toEqual([]);
    expect(
      (await call('GET', '/payments/api/links/', testKey)).body.links.map((l: Body) => l.link_id),
    ).toEqual([id]);
  });
});
