import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, STALE_CLAIM_MS } from '../../src/app/payments/createPaymentOnce.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { countRows, dialects } from '../helpers/database.ts';

describe.each(dialects)('Idempotency-Key on create, %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let merchantId: string;
  beforeAll(async () => {
    h = await startApiHarness(dialect);
    ({ apiKey, id: merchantId } = await h.merchant());
  });
  afterAll(() => h.close());

  const create = (key: string | undefined, body: string, apiKeyToUse = apiKey) =>
    h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: {
        'x-api-key': apiKeyToUse,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': key } : {}),
      },
      payload: body,
    });
  const paymentCount = () => countRows(h.database.handle.db, 'payments');
  let n = 0;
  const freshKey = () => `order-${dialect}-${++n}`;

  it('replays the stored response for the same key and body, creating one payment', async () => {
    const key = freshKey();
    const before = await paymentCount();
    const first = await create(key, '{"amount": 12.34, "currency": "EUR"}');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await create(key, '{"amount": 12.34, "currency": "EUR"}');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toStrictEqual(first.json());
    expect(await paymentCount()).toBe(before + 1);
  });

  it('refuses the same key with another body (422), scoped per merchant', async () => {
    const key = freshKey();
    await create(key, '{"amount": 1, "currency": "USD"}');
    const reused = await create(key, '{"amount": 2, "currency": "USD"}');
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const other = await h.merchant({ name: 'Other' });
    const elsewhere = await create(key, '{"amount": 2, "currency": "USD"}', other.apiKey);
    expect(elsewhere.statusCode).toBe(201);
    expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 409 while the first request is in flight, and lets a retry take over a claim that died', async () => {
    const key = freshKey();
    const body = '{"amount": 5, "currency": "USD"}';
    const { createHash } = await import('node:crypto');
    const now = h.clock.now();
    // A request that claimed the key and died before committing its payment.
    await h.stores.idempotency.claim({
      merchantId,
      mode: 'live',
      key,
      requestHash: createHash('sha256').update(body).digest('hex'),
      now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      staleClaimBefore: new Date(now.getTime() - STALE_CLAIM_MS),
    });
    const inFlight = await create(key, body);
    expect(inFlight.statusCode).toBe(409);
    expect(inFlight.json()).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    h.clock.advance(STALE_CLAIM_MS + 1);
    const retried = await create(key, body);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets a key whose request failed, so the client can retry it', async () => {
    const key = freshKey();
    expect((await create(key, '{"amount": 0, "currency": "USD"}')).statusCode).toBe(400);
    const fixed = await create(key, '{"amount": 3, "currency": "USD"}');
    expect(fixed.statusCode).toBe(201);
  });

  it('remembers a key for 24 hours', async () => {
    const key = freshKey();
    const body = '{"amount": 4, "currency": "USD"}';
    const first = (await create(key, body)).json();
    h.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await create(key, body)).json().payment_id).toBe(first.payment_id);
    h.clock.advance(2);
    const later = await create(key, body);
    expect(later.statusCode).toBe(201);
    expect(later.json().payment_id).not.toBe(first.payment_id);
  });

  it('creates exactly one payment for concurrent requests with the same key', async () => {
    const key = freshKey();
    const before = await paymentCount();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => create(key, '{"amount": 7, "currency": "USD"}')),
    );
    const created = responses.filter((r) => r.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.json().payment_id)).size).toBe(1);
    expect(responses.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
    expect(await paymentCount()).toBe(before + 1);
  });

  it('refuses a malformed key', async () => {
    for (const key of ['x'.repeat(256), 'with space', 'tab\tkey']) {
      const response = await create(key, '{"amount": 1, "currency": "USD"}');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'Idempotency-Key' });
    }
  });
});
