import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { PaylinkError } from '../../src/domain/errors.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { countRows, dialects } from '../helpers/database.ts';
import { UUID_V4, UUID_V7 } from '../helpers/ids.ts';

const UNAUTHORIZED = { error: 'Invalid or missing API key', code: 'UNAUTHORIZED' };

describe.each(dialects)('merchant API on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let otherKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect, { env: { PAYLINK_MAX_AMOUNT: '50000' } });
    apiKey = (await h.merchant()).apiKey;
    otherKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
  });
  afterAll(() => h.close());

  const create = (payload: unknown, headers: Record<string, string> = { 'x-api-key': apiKey }) =>
    h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const status = (id: string, key = apiKey) =>
    h.app.inject({ method: 'GET', url: `/payments/api/status/${id}/`, headers: { 'x-api-key': key } });
  const convert = (query: string, key = apiKey) =>
    h.app.inject({ method: 'GET', url: `/payments/api/convert/?${query}`, headers: { 'x-api-key': key } });
  const countPayments = () => countRows(h.database.handle.db, 'payments');

  describe('authentication', () => {
    it('refuses a request without a key with the exact spec body', async () => {
      const response = await create({ amount: 10, currency: 'USD' }, {});
      expect(response.statusCode).toBe(401);
      expect(response.json()).toStrictEqual(UNAUTHORIZED);
    });

    it('refuses an unknown key, a malformed Authorization header and an empty X-API-Key', async () => {
      for (const headers of [
        { 'x-api-key': 'sk_live_not_a_real_key' },
        { authorization: `Basic ${apiKey}` },
        { authorization: 'Bearer' },
        { 'x-api-key': '' },
      ]) {
        const withHeaders = await h.app.inject({
          method: 'GET',
          url: '/payments/api/convert/?amount=1&currency=USD',
          headers,
        });
        expect(withHeaders.statusCode).toBe(401);
        expect(withHeaders.json()).toStrictEqual(UNAUTHORIZED);
      }
    });

    it('accepts the key as X-API-Key and as Authorization: Bearer', async () => {
      expect((await create({ amount: 10, currency: 'USD' }, { 'x-api-key': apiKey })).statusCode).toBe(201);
      expect(
        (await create({ amount: 10, currency: 'USD' }, { authorization: `Bearer ${apiKey}` })).statusCode,
      ).toBe(201);
    });

    it('authenticates before reading the body: an invalid body without a key is a 401, not a 400', async () => {
      const response = await create('{not json', {});
      expect(response.statusCode).toBe(401);
      expect(response.json()).toStrictEqual(UNAUTHORIZED);
    });
  });

  describe('POST /payments/api/create/', () => {
    it('gives payments time-ordered ids: each later one sorts after the one before', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const response = await create({ amount: 10, currency: 'EUR', order_id: `ordered-${i}` });
        expect(response.statusCode).toBe(201);
        ids.push(response.json().payment_id);
      }
      expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
      expect([...ids].sort()).toStrictEqual(ids);
      expect(new Set(ids).size).toBe(5);
    });

    it('creates a payment with the spec fields and a locked quote', async () => {
      const response = await create({
        amount: 100.1,
        currency: 'EUR',
        order_id: 'order-42',
        customer_email: 'ann@example.com',
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body.success).toBe(true);
      expect(body.payment_id).toMatch(UUID_V7);
      expect(body.payment_url).toBe(`https://pay.example.test/pay/${body.payment_id}`);
      expect(body.message).toMatch(/redirect the customer to payment_url/i);
      // 100.10 EUR × 1.08 = 108.108 → rounded up to the cent: 108.11; commission 1.5% floored: 1.62165.
      expect(body.details).toStrictEqual({
        amount: '100.10',
        currency: 'EUR',
        merchant_will_receive: '106.48835 USDC',
        usdc_amount: '108.11',
        exchange_rate: '1.08',
        expires_at: new Date(h.clock.now().getTime() + 60 * 60_000).toISOString(),
        deposit_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        chain_id: 31337,
        token_address: TEST_CHAIN.tokenAddress,
      });
      // The deposit address is this payment's own forwarder, committed to the merchant wallet and commission.
      expect(body.details.deposit_address).toBe(
        depositPlanner(TEST_CHAIN).plan({
          paymentId: body.payment_id,
          merchantWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          commissionBps: 150,
        }).depositAddress,
      );
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    });

    it('keeps the exact decimal text of JSON numbers', async () => {
      const response = await create('{"amount": 100.10, "currency": "USD"}');
      expect(response.json().details.amount).toBe('100.10');
      const exponent = await create('{"amount": 1e2, "currency": "USD"}');
      expect(exponent.statusCode).toBe(201);
      expect(exponent.json().details.amount).toBe('100.00');
      // 0.1 + 0.2 style float error would show up here: 0.70 USD × 1.0002 = 0.70014 → 0.71 (rounded up).
      const small = await create('{"amount": 0.70, "currency": "USD"}');
      expect(small.json().details.usdc_amount).toBe('0.71');
    });

    it('accepts a numeric string and USDC itself (exact, at a rate of 1)', async () => {
      const response = await create({ amount: '12.5', currency: 'usdc' });
      expect(response.statusCode).toBe(201);
      expect(response.json().details).toMatchObject({
        amount: '12.50',
        currency: 'USDC',
        usdc_amount: '12.50',
        exchange_rate: '1',
        merchant_will_receive: '12.3125 USDC',
      });
    });

    it('respects each currency’s minor units (JPY 0, KWD 3)', async () => {
      expect((await create({ amount: 500, currency: 'JPY' })).json().details.amount).toBe('500');
      expect((await create({ amount: 1.234, currency: 'KWD' })).statusCode).toBe(201);
      const yen = await create({ amount: 500.5, currency: 'JPY' });
      expect(yen.statusCode).toBe(400);
      expect(yen.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'amount' });
      expect(yen.json().error).toContain('JPY allows at most 0 decimal places');
      expect((await create({ amount: 1.2345, currency: 'KWD' })).statusCode).toBe(400);
      expect((await create({ amount: 10.123, currency: 'EUR' })).statusCode).toBe(400);
    });

    it('stores the per-payment webhook URL, order id and e-mail', async () => {
      const response = await create({
        amount: 5,
        currency: 'USD',
        webhook_url: 'https://hooks.example.test/order-7',
        order_id: 'order-7',
        customer_email: 'bob@example.com',
      });
      const row = await h.database.handle.db
        .selectFrom('payments')
        .selectAll()
        .where('id', '=', response.json().payment_id)
        .executeTakeFirstOrThrow();
      expect(row.webhook_url).toBe('https://hooks.example.test/order-7');
      expect(row.order_id).toBe('order-7');
      expect(row.customer_email).toBe('bob@example.com');
      expect(row.payout_address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    });

    const invalid: [string, string, unknown][] = [
      ['missing amount', 'amount', { currency: 'USD' }],
      ['null amount', 'amount', { amount: null, currency: 'USD' }],
      ['non-numeric string', 'amount', { amount: 'ten', currency: 'USD' }],
      ['zero', 'amount', { amount: 0, currency: 'USD' }],
      ['negative', 'amount', { amount: -5, currency: 'USD' }],
      ['boolean amount', 'amount', { amount: true, currency: 'USD' }],
      ['object amount', 'amount', { amount: { value: 1 }, currency: 'USD' }],
      ['above PAYLINK_MAX_AMOUNT', 'amount', { amount: 50_000.01, currency: 'USDC' }],
      ['above the maximum after conversion', 'amount', { amount: 46_300, currency: 'EUR' }],
      ['unknown currency', 'currency', { amount: 1, currency: 'XYZ' }],
      ['missing currency', 'currency', { amount: 1 }],
      ['numeric currency', 'currency', { amount: 1, currency: 840 }],
      ['order_id too long', 'order_id', { amount: 1, currency: 'USD', order_id: 'x'.repeat(256) }],
      ['order_id not a string', 'order_id', { amount: 1, currency: 'USD', order_id: 12 }],
      ['bad e-mail', 'customer_email', { amount: 1, currency: 'USD', customer_email: 'not-an-email' }],
      ['webhook_url not a URL', 'webhook_url', { amount: 1, currency: 'USD', webhook_url: 'hooks' }],
      [
        'webhook_url over http',
        'webhook_url',
        { amount: 1, currency: 'USD', webhook_url: 'http://hooks.example.test/' },
      ],
      ['an array body', 'body', [{ amount: 1, currency: 'USD' }]],
      ['a string body', 'body', 'hello'],
      ['a null body', 'body', null],
    ];
    it.each(invalid)('refuses %s with 400 VALIDATION_ERROR naming %s', async (_case, field, payload) => {
      const before = await countPayments();
      const response = await create(payload);
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.field).toBe(field);
      expect(body.error).toContain(field);
      expect(body.details).toEqual([{ field, message: expect.any(String) }]);
      expect(await countPayments()).toBe(before); // nothing half-written
    });

    it('names every field the schema refuses in details, not only the first', async () => {
      const before = await countPayments();
      const response = await create({
        order_id: 12,
        customer_email: ['a@b.example'],
        return_url: 'x'.repeat(2049),
      });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'amount' });
      expect(body.error).toBe('5 fields are invalid: amount, currency, customer_email, order_id, return_url');
      expect(body.details).toHaveLength(5);
      expect(body.details).toEqual(
        expect.arrayContaining([
          { field: 'amount', message: 'is required' },
          { field: 'currency', message: 'is required' },
          { field: 'order_id', message: 'must be a string' },
          { field: 'customer_email', message: 'must be a string' },
          { field: 'return_url', message: 'must be at most 2048 characters' },
        ]),
      );
      expect(await countPayments()).toBe(before);
    });

    it('names every field the use case refuses in details: amount, currency, e-mail and URLs together', async () => {
      const before = await countPayments();
      const response = await create({
        amount: 'ten',
        currency: 'XYZ',
        customer_email: 'not-an-email',
        return_url: 'http://shop.example.test/done',
        order_id: 'fine-1',
      });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.error).toBe('4 fields are invalid: amount, currency, customer_email, return_url');
      expect(body.details).toEqual([
        { field: 'amount', message: 'must be a decimal number' },
        { field: 'currency', message: 'unsupported currency "XYZ"' },
        { field: 'customer_email', message: 'must be an e-mail address' },
        { field: 'return_url', message: 'must be an absolute https URL' },
      ]);
      expect(body.field).toBe('amount');
      expect(await countPayments()).toBe(before);
    });

    it('refuses an amount below PAYLINK_MIN_AMOUNT (0.50 USDC) after conversion: 5 JPY is 0.04 USDC', async () => {
      const before = await countPayments();
      const yen = await create({ amount: 5, currency: 'JPY' });
      expect(yen.statusCode).toBe(400);
      expect(yen.json()).toStrictEqual({
        error: 'amount: must be at least the equivalent of 0.50 USDC; it converts to 0.04 USDC',
        code: 'VALIDATION_ERROR',
        field: 'amount',
        details: [
          {
            field: 'amount',
            message: 'must be at least the equivalent of 0.50 USDC; it converts to 0.04 USDC',
          },
        ],
      });
      // One base unit below the minimum is refused; the minimum itself is a payment link.
      const below = await create({ amount: '0.499999', currency: 'USDC' });
      expect(below.statusCode).toBe(400);
      expect(below.json().error).toContain('it converts to 0.499999 USDC');
      expect(await countPayments()).toBe(before);
      const exactly = await create({ amount: '0.50', currency: 'USDC' });
      expect(exactly.statusCode).toBe(201);
      expect(exactly.json().details.usdc_amount).toBe('0.50');
      // 76 JPY is 0.5016 USDC, priced at 0.51: above the minimum once converted.
      expect((await create({ amount: 76, currency: 'JPY' })).statusCode).toBe(201);
    });

    it('refuses a 40-digit number instead of rounding it', async () => {
      const response = await create(`{"amount": ${'9'.repeat(40)}, "currency": "USD"}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'amount' });
      const tiny = await create('{"amount": 1e-400, "currency": "USD"}');
      expect(tiny.statusCode).toBe(400);
    });

    it('refuses malformed JSON, an empty body and duplicate keys with 400', async () => {
      for (const text of ['{"amount": 1,', '', '{"amount": 1, "amount": 2, "currency": "USD"}']) {
        const response = await create(text);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'body' });
      }
    });

    it('refuses a body that is not JSON with 415', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': apiKey, 'content-type': 'text/plain' },
        payload: 'amount=1&currency=USD',
      });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toStrictEqual({
        error: 'Content-Type must be application/json',
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
      const form = await h.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'amount=1&currency=USD',
      });
      expect(form.statusCode).toBe(415);
    });

    it('answers 409 MERCHANT_NOT_CONFIGURED naming what is missing', async () => {
      const noWallet = await h.merchant({ name: 'No wallet', wallet: null });
      const response = await create({ amount: 1, currency: 'USD' }, { 'x-api-key': noWallet.apiKey });
      expect(response.statusCode).toBe(409);
      expect(response.json().code).toBe('MERCHANT_NOT_CONFIGURED');
      expect(response.json().error).toContain('wallet address');
      const noHook = await h.merchant({ name: 'No webhook', webhookUrl: null });
      const second = await create({ amount: 1, currency: 'USD' }, { 'x-api-key': noHook.apiKey });
      expect(second.statusCode).toBe(409);
      expect(second.json().error).toContain('webhook URL');
      expect(second.json().error).not.toContain('wallet');
    });

    it('answers 503 RATE_UNAVAILABLE for a real currency no source prices', async () => {
      const response = await create({ amount: 10, currency: 'CHF' });
      expect(response.statusCode).toBe(503);
      expect(response.json().code).toBe('RATE_UNAVAILABLE');
    });
  });

  describe('GET /payments/api/status/{payment_id}/', () => {
    it('reports a new payment as pending, with its payout, and no paid_at', async () => {
      const created = (await create({ amount: 100.1, currency: 'EUR', order_id: 'order-9' })).json();
      const response = await status(created.payment_id);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({
        payment_id: created.payment_id,
        status: 'pending',
        amount: '100.10',
        currency: 'EUR',
        payout_amount: '106.48835 USDC',
        order_id: 'order-9',
        usdc_amount: '108.11',
        amount_received: '0.00',
        amount_due: '108.11',
        amount_overpaid: '0.00',
        amount_refunded: '0.00',
        refunds: [],
        expires_at: created.details.expires_at,
        deposit_address: created.details.deposit_address,
        chain_id: 31337,
        token_address: TEST_CHAIN.tokenAddress,
        token_symbol: 'USDC',
        transfers: [],
        payout_status: 'not_due',
      });
    });

    it('derives expired once the link has passed its lifetime', async () => {
      const created = (await create({ amount: 1, currency: 'USD' })).json();
      h.clock.advance(60 * 60_000);
      expect((await status(created.payment_id)).json().status).toBe('pending'); // exactly at expiry: still on time
      h.clock.advance(1);
      expect((await status(created.payment_id)).json().status).toBe('expired');
    });

    it('gives the same 404 for unknown, malformed and other merchants’ ids', async () => {
      const created = (await create({ amount: 1, currency: 'USD' })).json();
      const notFound = { error: 'Payment not found', code: 'NOT_FOUND' };
      for (const response of [
        await status('6f1c1f2e-8a4b-4c1e-9d3a-2b7e5f0a9c11'),
        await status('not-a-uuid'),
        await status('%27%20or%201%3D1--'),
        await status(created.payment_id, otherKey),
      ]) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toStrictEqual(notFound);
      }
      expect((await status(created.payment_id.toUpperCase())).statusCode).toBe(200);
    });

    it('requires authentication', async () => {
      const response = await h.app.inject({
        method: 'GET',
        url: '/payments/api/status/6f1c1f2e-8a4b-4c1e-9d3a-2b7e5f0a9c11/',
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toStrictEqual(UNAUTHORIZED);
    });
  });

  describe('GET /payments/api/convert/', () => {
    it('converts with the spec fields', async () => {
      const response = await convert('amount=10&currency=EUR');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({
        amount: '10.00',
        currency: 'EUR',
        usdc_amount: '10.80',
        exchange_rate: '1.08',
      });
    });

    it('answers the same USDC amount as create for the same input', async () => {
      const converted = (await convert('amount=33.33&currency=CAD')).json();
      const created = (await create({ amount: 33.33, currency: 'CAD' })).json();
      expect(created.details.usdc_amount).toBe(converted.usdc_amount);
      expect(created.details.exchange_rate).toBe(converted.exchange_rate);
    });

    it.each([
      ['amount', 'currency=EUR'],
      ['amount', 'amount=abc&currency=EUR'],
      ['amount', 'amount=-1&currency=EUR'],
      ['amount', 'amount=1.001&currency=EUR'],
      ['currency', 'amount=1'],
      ['currency', 'amount=1&currency=ZZZ'],
      ['amount', 'amount=1&amount=2&currency=EUR'],
    ])('refuses bad input with 400 naming %s (%s)', async (field, query) => {
      const response = await convert(query);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field });
      expect(response.json().details).toContainEqual({ field, message: expect.any(String) });
    });

    it('names both an amount and a currency that are wrong', async () => {
      const response = await convert('amount=abc&currency=ZZZ');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toStrictEqual({
        error: '2 fields are invalid: amount, currency',
        code: 'VALIDATION_ERROR',
        field: 'amount',
        details: [
          { field: 'amount', message: 'must be a decimal number' },
          { field: 'currency', message: 'unsupported currency "ZZZ"' },
        ],
      });
    });
  });

  describe('edges', () => {
    it('answers unknown routes with 404 in the error shape', async () => {
      const response = await h.app.inject({ method: 'GET', url: '/payments/api/nope/' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toStrictEqual({ error: 'Route not found', code: 'NOT_FOUND' });
    });

    it('puts a request id on every response and keeps a caller’s plain one', async () => {
      const mine = await h.app.inject({
        method: 'GET',
        url: '/nope',
        headers: { 'x-request-id': 'trace-123' },
      });
      expect(mine.headers['x-request-id']).toBe('trace-123');
      const generated = await create({ amount: 1, currency: 'USD' });
      expect(generated.headers['x-request-id']).toMatch(UUID_V4);
      const hostile = await h.app.inject({
        method: 'GET',
        url: '/nope',
        headers: { 'x-request-id': 'a\nb c' },
      });
      expect(hostile.headers['x-request-id']).toMatch(UUID_V4);
    });

    it('logs one line per request naming the merchant and mode, joined to the route’s lines by request id', async () => {
      const response = await create(
        { amount: 1, currency: 'USD' },
        { 'x-api-key': apiKey, 'x-request-id': 'join-me' },
      );
      const lines = h
        .logs()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((line) => line.reqId === 'join-me');
      expect(lines.map((line) => line.msg)).toEqual(['payment created', 'request completed']);
      expect(lines[0].payment).toBe(response.json().payment_id);
      const merchantId = (
        await h.database.handle.db
          .selectFrom('payments')
          .select('merchant_id')
          .where('id', '=', lines[0].payment)
          .executeTakeFirstOrThrow()
      ).merchant_id;
      expect(lines[1]).toMatchObject({ method: 'POST', statusCode: 201, merchant: merchantId, mode: 'live' });
    });

    it('never shows a secret in the logs', async () => {
      await create({ amount: 1, currency: 'USD' }, { authorization: `Bearer ${apiKey}` });
      await create({ amount: 1, currency: 'USD' });
      const logs = h.logs();
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(apiKey);
      expect(logs).not.toContain(apiKey.slice(8));
    });

    it('publishes an OpenAPI 3.1 document with the spec paths and a rendered reference', async () => {
      const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          '/payments/api/create/',
          '/payments/api/status/{payment_id}/',
          '/payments/api/convert/',
        ]),
      );
      expect(doc.paths['/payments/api/create/'].post.responses['201']).toBeDefined();
      expect(
        doc.paths['/payments/api/create/'].post.requestBody.content['application/json'].schema.properties
          .amount,
      ).toBeDefined();
      const docs = await h.app.inject({ method: 'GET', url: '/docs/' });
      expect(docs.statusCode).toBe(200);
      expect(docs.body).toContain('swagger');
    });
  });
});

describe.each(dialects)('unexpected failures on %s', (dialect) => {
  it('answer 500 INTERNAL_ERROR with details only in the log', async () => {
    const h = await startApiHarness(dialect, {
      rates: {
        usdcPerUnit: async () => {
          throw new Error('connection string postgres://secret@db leaked?');
        },
      },
    });
    try {
      const { apiKey } = await h.merchant();
      const response = await h.app.inject({
        method: 'GET',
        url: '/payments/api/convert/?amount=1&currency=EUR',
        headers: { 'x-api-key': apiKey },
      });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toStrictEqual({ error: 'Internal error', code: 'INTERNAL_ERROR' });
      expect(response.body).not.toContain('secret');
      expect(h.logs()).toContain('connection string postgres://secret@db leaked?');
      // A PaylinkError from a dependency keeps its own status and message.
      const h2 = await startApiHarness(dialect, {
        rates: {
          usdcPerUnit: async () => {
            throw new PaylinkError('RATE_UNAVAILABLE', 'No reliable rate');
          },
        },
      });
      try {
        const { apiKey: key2 } = await h2.merchant();
        const second = await h2.app.inject({
          method: 'GET',
          url: '/payments/api/convert/?amount=1&currency=EUR',
          headers: { 'x-api-key': key2 },
        });
        expect(second.statusCode).toBe(503);
      } finally {
        await h2.close();
      }
    } finally {
      await h.close();
    }
  });
});
