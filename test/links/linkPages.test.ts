import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckoutLinks } from '../../src/adapters/checkout/linkRoutes.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import type { TransferRecord } from '../../src/app/chain/ports.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, payLinkDeps, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

const SANDBOX = { name: 'Sandbox (local anvil)', chainId: 31337, explorerUrl: '' };
const HOSTILE = `<script>alert(1)</script> & "Tips"`;
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

/**
 * A reusable link's page on the checkout origin (`/l/<id>`) over a real socket, on SQLite and PostgreSQL: what it
 * shows, that a view creates nothing, the payer's choice posted as a form and turned into a payment of exactly
 * that amount, the bounds, the page's own origin required, the rate per client, and closed, ended and used-up links.
 */
describe.each(dialects)('link pages on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let checkout: FastifyInstance;
  let base: string;

  const linkPages = (): CheckoutLinks => ({ pay: payLinkDeps(h), buckets: memoryBucketStore() });
  const startCheckout = async (pages: CheckoutLinks) => {
    const app = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: SANDBOX,
      linkPages: pages,
    });
    return { app, base: await app.listen({ host: '127.0.0.1', port: 0 }) };
  };

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    apiKey = (await h.merchant({ name: 'Corner Café' })).apiKey;
    ({ app: checkout, base } = await startCheckout(linkPages()));
  });
  afterAll(async () => {
    await checkout?.close();
    await h?.close();
  });

  const api = async (method: string, url: string, body?: Body) => {
    const response = await h.app.inject({
      method: method as 'POST',
      url,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: response.statusCode, body: response.json() as Body };
  };
  const createLink = async (fields: Body): Promise<string> => {
    const created = await api('POST', '/payments/api/links/', { title: 'Coffee', ...fields });
    expect(created.status).toBe(201);
    return created.body.link_id;
  };
  const openLink = (fields: Body = {}) =>
    createLink({
      title: 'Tip the band',
      price_type: 'open',
      currency: 'USDC',
      min_amount: '1.00',
      max_amount: '500.00',
      suggested_amounts: ['5.00', '20.00'],
      ...fields,
    });
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers, redirect: 'manual' });
  const post = (
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = SAME_ORIGIN,
    at = base,
  ) =>
    fetch(`${at}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
  const paymentsOf = (linkId: string) =>
    h.database.handle.db.selectFrom('payments').selectAll().where('link_id', '=', linkId).execute();
  const allPayments = async () =>
    Number(
      (
        await h.database.handle.db
          .selectFrom('payments')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The payment a 303 points at, with the amount it asks for. */
  const paymentFrom = async (response: Response) => {
    expect(response.status).toBe(303);
    const location = response.headers.get('location') ?? '';
    const match = /^\/pay\/([0-9a-f-]{36})\?lang=en$/.exec(location);
    expect(match).not.toBeNull();
    const payment = await h.stores.payments.findById(match![1]!);
    expect(payment).toBeDefined();
    return { location, payment: payment! };
  };

  it('shows an open link: title, description, merchant, suggestions and the bounds, and a view creates nothing', async () => {
    const id = await openLink({ description: HOSTILE, image_url: 'https://cdn.shop.example/band.png?v=1' });
    const before = await allPayments();
    const response = await get(`/l/${id}`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<h1>Tip the band</h1>');
    expect(page).toContain('Pay Corner Café');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Tips&quot;');
    expect(page).not.toContain('<script>alert(1)');
    expect(page).toContain('name="amount" value="5.00" formnovalidate>5.00 USDC</button>');
    expect(page).toContain('name="amount" value="20.00" formnovalidate>20.00 USDC</button>');
    expect(page).toContain('From 1.00 to 500.00 USDC.');
    expect(page).toContain(
      '<img class="link-image" src="https://cdn.shop.example/band.png?v=1" alt="" referrerpolicy="no-referrer"',
    );
    // The policy lets the page post to itself and load that image's origin, and nothing more.
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("form-action 'self'");
    expect(policy).toContain("img-src 'self' data: https://cdn.shop.example;");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    // Same-origin only: a browser without Sec-Fetch-Site then sends the page's Origin with its post.
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    // Viewing again and again: still no payment row, so no deposit address either.
    await get(`/l/${id}`);
    expect(await allPayments()).toBe(before);
    expect(await paymentsOf(id)).toEqual([]);
  });

  it('shows no image and keeps the images policy when the link has none', async () => {
    const id = await openLink();
    const response = await get(`/l/${id}`);
    expect(await response.text()).not.toContain('<img');
    expect(response.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
  });

  it('shows no image from a plain http URL (the sandbox allows one) rather than loosening the policy', async () => {
    const id = await openLink();
    await h.database.handle.db
      .updateTable('payment_links')
      .set({ image_url: 'http://cdn.shop.example/band.png' })
      .where('id', '=', id)
      .execute();
    const response = await get(`/l/${id}`);
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain('cdn.shop.example');
    expect(response.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
  });

  it('speaks the payer’s language', async () => {
    const id = await openLink();
    const page = await (await get(`/l/${id}?lang=fr`)).text();
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain('Choisissez un montant');
    expect(page).toContain(`action="/l/${id}?lang=fr"`);
  });

  it('records the language the payer committed in, and the checkout page the language it shows while open', async () => {
    const id = await openLink();
    const response = await post(`/l/${id}?lang=es`, { amount: '5.00' });
    expect(response.status).toBe(303);
    const paymentId = /^\/pay\/([0-9a-f-]{36})\?lang=es$/.exec(response.headers.get('location') ?? '')![1]!;
    expect((await h.stores.payments.findById(paymentId))?.payerLanguage).toBe('es');
    // The payer's browser shows the checkout in German: that is the language the payer reads now.
    expect((await get(`/pay/${paymentId}`, { 'accept-language': 'de-AT,de;q=0.9' })).status).toBe(200);
    expect((await h.stores.payments.findById(paymentId))?.payerLanguage).toBe('de');
    // A merchant's customer_language is the merchant's word: the page does not replace it.
    const given = await api('POST', '/payments/api/create/', {
      amount: '5.00',
      currency: 'USDC',
      customer_language: 'fr',
    });
    expect((await get(`/pay/${given.body.payment_id}?lang=de`)).status).toBe(200);
    expect(await h.stores.payments.findById(given.body.payment_id)).toMatchObject({
      customerLanguage: 'fr',
      payerLanguage: null,
    });
  });

  it('makes a payment of a suggested amount and sends the payer to its page', async () => {
    const id = await openLink();
    const { location, payment } = await paymentFrom(await post(`/l/${id}?lang=en`, { amount: '20.00' }));
    expect(payment.linkId).toBe(id);
    expect(payment.quote.usdcBaseUnits).toBe(20_000_000n);
    const page = await get(location);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('20.00');
  });

  it('takes a typed amount over the suggestion that sent the form (Enter in a field sends its first button)', async () => {
    const id = await openLink();
    // A checkout of its own: its client's rate is this test's alone.
    const own = await startCheckout(linkPages());
    try {
      const typed = { amount: '5.00', typed_amount: ' 12,50 ' };
      const fromTyped = await paymentFrom(await post(`/l/${id}`, typed, SAME_ORIGIN, own.base));
      expect(fromTyped.payment.quote.usdcBaseUnits).toBe(12_500_000n);
      // An empty field is no amount typed: the suggestion stands.
      const suggested = { amount: '5.00', typed_amount: '' };
      const fromSuggested = await paymentFrom(await post(`/l/${id}`, suggested, SAME_ORIGIN, own.base));
      expect(fromSuggested.payment.quote.usdcBaseUnits).toBe(5_000_000n);
    } finally {
      await own.app.close();
    }
  });

  it('takes the payer’s e-mail for the receipt, and refuses one that is not an address, creating nothing', async () => {
    const id = await createLink({ price_type: 'fixed', currency: 'USDC', amount: '3.00' });
    const page = await (await get(`/l/${id}`)).text();
    expect(page).toContain('name="email" type="email"');
    const own = await startCheckout(linkPages());
    try {
      const given = await post(`/l/${id}`, { email: ' payer@example.com ' }, SAME_ORIGIN, own.base);
      expect((await paymentFrom(given)).payment.customerEmail).toBe('payer@example.com');
      const without = await post(`/l/${id}`, { email: '' }, SAME_ORIGIN, own.base);
      expect((await paymentFrom(without)).payment.customerEmail).toBeNull();
      const before = (await paymentsOf(id)).length;
      const refused = await post(`/l/${id}`, { email: 'payer@"<b>' }, SAME_ORIGIN, own.base);
      expect(refused.status).toBe(400);
      const text = await refused.text();
      expect(text).toContain('Enter an e-mail address, or leave the field empty.');
      // The address comes back as typed, escaped, so the payer can mend it.
      expect(text).toContain('value="payer@&quot;&lt;b&gt;"');
      expect((await paymentsOf(id)).length).toBe(before);
    } finally {
      await own.app.close();
    }
  });

  it('takes the minimum and the maximum, a decimal comma, and refuses just outside with the page’s error', async () => {
    const id = await openLink();
    expect((await paymentFrom(await post(`/l/${id}`, { amount: '1.00' }))).payment.quote.usdcBaseUnits).toBe(
      1_000_000n,
    );
    expect((await paymentFrom(await post(`/l/${id}`, { amount: '500' }))).payment.quote.usdcBaseUnits).toBe(
      500_000_000n,
    );
    expect((await paymentFrom(await post(`/l/${id}`, { amount: '12,50' }))).payment.quote.usdcBaseUnits).toBe(
      12_500_000n,
    );
    const before = (await paymentsOf(id)).length;
    for (const amount of ['0.99', '500.01', '1,000', 'ten', '']) {
      const refused = await post(`/l/${id}`, { amount });
      expect(refused.status).toBe(400);
      const page = await refused.text();
      expect(page).toContain(
        '<p class="notice error" role="alert" id="link-error">Enter an amount from 1.00 to 500.00 USDC.</p>',
      );
      expect(page).toContain('aria-invalid="true"');
    }
    expect((await paymentsOf(id)).length).toBe(before);
  });

  it('tells an amount with too many decimals so, and writes the bounds in the page’s language (en, de)', async () => {
    const id = await openLink({ currency: 'EUR' });
    const errorOf = async (amount: string, lang: string) => {
      const refused = await post(`/l/${id}?lang=${lang}`, { typed_amount: amount });
      expect(refused.status).toBe(400);
      const page = await refused.text();
      expect(page).toContain('aria-invalid="true"');
      return /<p class="notice error" role="alert" id="link-error">([^<]*)<\/p>/.exec(page)?.[1];
    };
    for (const amount of ['10.505', '10.5051', '1.001']) {
      expect(await errorOf(amount, 'en')).toBe(
        'Too many decimals: enter the amount with at most 2 decimal places.',
      );
    }
    // In German a comma is the decimal mark: "10,505" is too precise too, not out of bounds.
    for (const amount of ['10.505', '10,505']) {
      expect(await errorOf(amount, 'de')).toBe(
        'Zu viele Nachkommastellen: Geben Sie den Betrag mit höchstens 2 Nachkommastellen ein.',
      );
    }
    // Out of bounds: the error writes them as the hint below the field does.
    expect(await errorOf('600', 'en')).toBe('Enter an amount from 1.00 to 500.00 EUR.');
    const german = await (await post(`/l/${id}?lang=de`, { typed_amount: '0,50' })).text();
    expect(german).toContain('Geben Sie einen Betrag von 1,00 bis 500,00 EUR ein.');
    expect(german).toContain('Von 1,00 bis 500,00 EUR.');
    expect(german).not.toContain('1.00');
    expect(await paymentsOf(id)).toEqual([]);
  });

  it('multiplies a fixed price by the quantity picked, within 1 to the link’s maximum', async () => {
    const id = await createLink({ price_type: 'fixed', currency: 'EUR', amount: '4.50', max_quantity: '5' });
    const page = await (await get(`/l/${id}`)).text();
    expect(page).toContain('4.50 EUR');
    expect(page).toContain('name="quantity" type="number" inputmode="numeric" min="1" max="5"');
    const { payment } = await paymentFrom(await post(`/l/${id}`, { quantity: '3' }));
    expect(payment.quote.amount.minorUnits).toBe(1350n);
    expect(payment.quote.amount.currency.code).toBe('EUR');
    for (const quantity of ['0', '6', '1.5']) {
      const refused = await post(`/l/${id}`, { quantity });
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('Choose a quantity from 1 to 5.');
    }
    expect((await paymentsOf(id)).length).toBe(1);
  });

  it('refuses a post that is not from the page itself, and bad text, without creating anything', async () => {
    const id = await openLink();
    const host = new URL(base).host;
    for (const headers of [
      {},
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ]) {
      const refused = await post(`/l/${id}`, { amount: '5.00' }, headers);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('This form must be sent from its own page.');
    }
    expect(await paymentsOf(id)).toEqual([]);
    // A browser that sends no Sec-Fetch-Site still sends its Origin with a form post to its own origin.
    expect((await post(`/l/${id}`, { amount: '5.00' }, { origin: `http://${host}` })).status).toBe(303);
    const bad = await post(`/l/${id}`, { amount: '5.00\u0000' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('The form could not be read.');
    expect((await paymentsOf(id)).length).toBe(1);
  });

  it('answers a closed link 410, an ended one 410, a used-up one 409, a sold-out one 410 and an unknown one 404, each with its page', async () => {
    const closed = await openLink();
    expect((await api('POST', `/payments/api/links/${closed}/deactivate/`, {})).status).toBe(200);
    for (const response of [await get(`/l/${closed}`), await post(`/l/${closed}`, { amount: '5.00' })]) {
      expect(response.status).toBe(410);
      expect(await response.text()).toContain('This payment link is closed');
    }

    const once = await openLink({ max_uses: '1' });
    await paymentFrom(await post(`/l/${once}`, { amount: '5.00' }));
    for (const response of [await get(`/l/${once}`), await post(`/l/${once}`, { amount: '5.00' })]) {
      expect(response.status).toBe(409);
      expect(await response.text()).toContain('This payment link is fully taken');
    }
    expect((await paymentsOf(once)).length).toBe(1);
    // Once every use is paid, no place will free up: sold out for good, with no "try again later".
    await h.database.handle.db
      .updateTable('payments')
      .set({ status: 'paid', amount_received_base_units: '5000000' })
      .where('link_id', '=', once)
      .execute();
    // (Posted to a checkout of its own: this test's posts above have spent the client's rate on the first.)
    const own = await startCheckout(linkPages());
    const soldOut = [
      await get(`/l/${once}`),
      await post(`/l/${once}`, { amount: '5.00' }, SAME_ORIGIN, own.base),
    ];
    await own.app.close();
    for (const response of soldOut) {
      expect(response.status).toBe(410);
      const text = await response.text();
      expect(text).toContain('This payment link is sold out');
      expect(text).toContain('Every payment it could take has been paid, so it takes no more.');
      expect(text).not.toContain('try again later');
    }
    expect((await paymentsOf(once)).length).toBe(1);

    const ending = await openLink({ ends_at: new Date(h.clock.now().getTime() + 60_000).toISOString() });
    h.clock.advance(60_000);
    for (const response of [await get(`/l/${ending}`), await post(`/l/${ending}`, { amount: '5.00' })]) {
      expect(response.status).toBe(410);
      expect(await response.text()).toContain('This payment link has ended');
    }
    expect(await paymentsOf(ending)).toEqual([]);

    // A disabled merchant's link is gone for the payer, like an unknown one.
    const other = await h.merchant({ name: 'Closed Shop' });
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/links/',
      headers: { 'x-api-key': other.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'Gone', price_type: 'fixed', currency: 'USDC', amount: '5.00' }),
    });
    const gone = created.json().link_id as string;
    expect((await get(`/l/${gone}`)).status).toBe(200);
    await h.database.handle.db
      .updateTable('merchants')
      .set({ status: 'disabled' })
      .where('id', '=', other.id)
      .execute();
    expect((await post(`/l/${gone}`, {})).status).toBe(404);

    for (const path of [`/l/${gone}`, '/l/0190a0b0-0000-7000-8000-000000000000', '/l/not-a-link']) {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('Payment link not found');
    }
  });

  it('limits the payments one client makes, telling the payer on the page', async () => {
    const own = await startCheckout(linkPages());
    try {
      const id = await openLink();
      for (let i = 0; i < 10; i += 1)
        await paymentFrom(await post(`/l/${id}`, { amount: '5.00' }, SAME_ORIGIN, own.base));
      const limited = await post(`/l/${id}`, { amount: '5.00' }, SAME_ORIGIN, own.base);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.text()).toContain('Too many attempts from your connection.');
      expect((await paymentsOf(id)).length).toBe(10);
    } finally {
      await own.app.close();
    }
  });

  describe('after paying', () => {
    // The client's bucket refilled: the tests above made their share of payments from this address.
    beforeEach(() => h.clock.advance(10 * 60_000));
    let block = 1_000n;
    /** A final transfer of the whole price into the payment's address, stored as the chain watcher stores it. */
    const payInFull = async (payment: Payment) => {
      block += 1n;
      const blockHash = `0x${block.toString(16).padStart(64, '0')}`;
      const transfer: TransferRecord = {
        id: `${TEST_CHAIN.chainId}:${blockHash}:0`,
        chainId: TEST_CHAIN.chainId,
        paymentId: payment.id,
        txHash: `0x${(block * 7n).toString(16).padStart(64, 'a')}`,
        blockHash,
        blockNumber: block,
        logIndex: 0,
        blockTimestamp: h.clock.now(),
        tokenAddress: TEST_CHAIN.tokenAddress.toLowerCase(),
        tokenSymbol: 'USDC',
        fromAddress: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
        toAddress: payment.deposit!.depositAddress.toLowerCase(),
        amountBaseUnits: payment.quote.usdcBaseUnits,
        final: true,
        orphaned: false,
      };
      const now = h.clock.now();
      await h.stores.ledger.transaction(async (tx) =>
        refreshPayments(tx, await tx.insertTransfers([transfer]), now),
      );
    };
    const urls = { success_url: 'https://shop.example/thanks?o=1', cancel_url: 'https://shop.example/cart' };

    it('offers the return to the success_url, with the payment id, and the countdown that takes the payer there', async () => {
      const id = await openLink(urls);
      const { location, payment } = await paymentFrom(await post(`/l/${id}`, { amount: '5.00' }));
      await payInFull(payment);
      const page = await (await get(location)).text();
      expect(page).toContain(
        `<a class="button primary" href="https://shop.example/thanks?o=1&amp;payment_id=${payment.id}" data-return-link>Return to Corner Café</a>`,
      );
      expect(page).toContain('Taking you back to Corner Café in <span data-redirect-seconds>5</span> s.');
      expect(page).toContain('data-redirect-stay>Stay on this page</button>');
    });

    it('offers the cancel_url, not the success_url, once the payment has expired', async () => {
      const id = await openLink(urls);
      const { location, payment } = await paymentFrom(await post(`/l/${id}`, { amount: '5.00' }));
      h.clock.advance(31 * 60_000);
      const page = await (await get(location)).text();
      // Every stage is in the page; the one shown is the expired one, and it never points at the success_url.
      const expired =
        /<section class="stage end" data-stage="expired"[^>]*>[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
      expect(expired).not.toContain(' hidden>');
      expect(expired).toContain('This payment link has expired');
      expect(expired).toContain(
        `<a class="button primary" href="https://shop.example/cart?payment_id=${payment.id}">Back to Corner Café</a>`,
      );
      expect(expired).not.toContain('shop.example/thanks');
    });
  });
});
