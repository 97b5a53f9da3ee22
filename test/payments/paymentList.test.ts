import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentStatus } from '../../src/domain/paymentStatus.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

const TTL_MS = 60 * 60_000;

describe.each(dialects)('GET /payments/api/payments/ on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let otherKey: string;
  let blockNumber = 100n;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    apiKey = (await h.merchant()).apiKey;
    otherKey = (await h.merchant({ name: 'Other Shop' })).apiKey;
  });
  afterAll(() => h.close());

  const create = async (body: Record<string, unknown>, key = apiKey): Promise<string> => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: body,
    });
    expect(response.statusCode).toBe(201);
    return response.json().payment_id;
  };
  const list = (query: string, key = apiKey) =>
    h.app.inject({ method: 'GET', url: `/payments/api/payments/${query}`, headers: { 'x-api-key': key } });
  const ids = (response: { json(): { payments: { payment_id: string }[] } }) =>
    response.json().payments.map((p) => p.payment_id);

  /** Pages through a query with `limit`, returning every id in order and the number of pages. */
  const listAll = async (query: string, limit: number) => {
    const all: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const suffix: string = cursor === null ? '' : `&cursor=${cursor}`;
      const response = await list(`?limit=${limit}${query}${suffix}`);
      expect(response.statusCode).toBe(200);
      all.push(...ids(response));
      cursor = response.json().next_cursor;
      pages += 1;
      expect(pages).toBeLessThan(100);
    } while (cursor !== null);
    return { all, pages };
  };

  /** Records a transfer as the watcher would, with the stored status it would write. */
  const recordTransfer = async (paymentId: string, usdc: bigint, final: boolean, status: PaymentStatus) => {
    blockNumber += 1n;
    await h.stores.ledger.transaction(async (tx) => {
      await tx.insertTransfers([
        {
          id: `31337:0xblock${blockNumber}:0`,
          chainId: 31337,
          paymentId,
          txHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
          logIndex: 0,
          blockNumber,
          blockHash: `0xblock${blockNumber}`,
          blockTimestamp: h.clock.now(),
          tokenAddress: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
          tokenSymbol: 'USDC',
          fromAddress: '0x0000000000000000000000000000000000000001',
          toAddress: '0x0000000000000000000000000000000000000002',
          amountBaseUnits: usdc * 1_000_000n,
          final,
          orphaned: false,
        },
      ]);
      await tx.updatePaymentState(paymentId, {
        state: {
          status,
          amountReceivedBaseUnits: final ? usdc * 1_000_000n : 0n,
          amountSeenBaseUnits: usdc * 1_000_000n,
          paidAt: status === 'paid' ? h.clock.now() : null,
          late: false,
          completedBy: null,
          lastSeen: null,
        },
        txid: null,
        txidChainId: null,
        paidWith: null,
        announcedStatus: status,
        updatedAt: h.clock.now(),
      });
    });
  };

  it('shows what was seen as received while processing, and no payout before the payment is due', async () => {
    const paymentId = await create({ amount: 12, currency: 'USDC', order_id: 'seen-1' });
    await recordTransfer(paymentId, 5n, false, 'processing');
    const status = await h.app.inject({
      method: 'GET',
      url: `/payments/api/status/${paymentId}/`,
      headers: { 'x-api-key': apiKey },
    });
    expect(status.json()).toMatchObject({
      status: 'processing',
      amount_received: '5.00',
      amount_due: '7.00',
      payout_status: 'not_due',
    });
    const [listed] = (await list('?order_id=seen-1')).json().payments;
    expect(listed).toMatchObject({ status: 'processing', amount_received: '5.00', payout_status: 'not_due' });
  });

  it('lists only the caller’s payments, newest first, each exactly as the status endpoint shows it', async () => {
    const mine: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      mine.push(await create({ amount: 10 + i, currency: 'USD', order_id: `list-${i}` }));
      h.clock.advance(1_000);
    }
    await create({ amount: 1, currency: 'USD', order_id: 'list-0' }, otherKey);
    const response = await list('?order_id=list-1');
    expect(response.statusCode).toBe(200);
    const single = await h.app.inject({
      method: 'GET',
      url: `/payments/api/status/${mine[1]}/`,
      headers: { 'x-api-key': apiKey },
    });
    expect(single.json().status).toBe('pending');
    // The refunds and transfers of a payment are on its status endpoint only (one more query per payment each).
    const { amount_refunded, refunds, transfers, ...listed } = single.json();
    expect({ amount_refunded, refunds, transfers }).toStrictEqual({
      amount_refunded: '0.00',
      refunds: [],
      transfers: [],
    });
    expect(response.json()).toStrictEqual({ payments: [listed], next_cursor: null });

    const everything = ids(await list(''));
    expect(everything.slice(0, 3)).toStrictEqual([...mine].reverse());
    const others = ids(await list('', otherKey));
    expect(others).toHaveLength(1);
    expect(everything).not.toContain(others[0]);
  });

  it('pages with an opaque cursor to the end, where next_cursor is null; the default page is 20', async () => {
    for (let i = 0; i < 23; i += 1) {
      await create({ amount: 1, currency: 'USD', order_id: 'bulk' });
      h.clock.advance(10);
    }
    const first = await list('?order_id=bulk');
    expect(first.json().payments).toHaveLength(20);
    expect(typeof first.json().next_cursor).toBe('string');
    const { all, pages } = await listAll('&order_id=bulk', 5);
    expect(pages).toBe(5);
    expect(new Set(all).size).toBe(23);
    const last = await list('?order_id=bulk&limit=23');
    expect(ids(last)).toStrictEqual(all);
    expect(last.json().next_cursor).toBeNull();
    expect((await list('?order_id=bulk&limit=100')).json().payments).toHaveLength(23);
  });

  it('breaks ties on the creation time by id, and stays stable while payments are created', async () => {
    // Same instant: the test clock does not move between these three.
    const tied = [
      await create({ amount: 1, currency: 'USD', order_id: 'tie' }),
      await create({ amount: 1, currency: 'USD', order_id: 'tie' }),
      await create({ amount: 1, currency: 'USD', order_id: 'tie' }),
    ];
    const { all } = await listAll('&order_id=tie', 1);
    expect(all).toStrictEqual([...tied].sort().reverse());

    const page1 = await list('?order_id=tie&limit=2');
    h.clock.advance(1_000);
    const newer = await create({ amount: 1, currency: 'USD', order_id: 'tie' });
    const page2 = await list(`?order_id=tie&limit=2&cursor=${page1.json().next_cursor}`);
    expect([...ids(page1), ...ids(page2)]).toStrictEqual(all);
    expect(page2.json().next_cursor).toBeNull();
    expect(ids(await list('?order_id=tie&limit=1'))).toStrictEqual([newer]);
  });

  it('filters on the status derived now, as the status endpoint reports it', async () => {
    h.clock.advance(TTL_MS * 2); // everything created so far has expired (stored status still pending)
    const next = async () => {
      h.clock.advance(1); // distinct creation times: the listing order is the creation order
      return create({ amount: 3, currency: 'USDC', order_id: 'status' });
    };
    const pending = await next();
    const paid = await next();
    const processing = await next();
    const failing = await next();
    const expiring = await next();
    await recordTransfer(paid, 3n, true, 'paid');
    await recordTransfer(processing, 1n, false, 'processing');
    await recordTransfer(failing, 1n, true, 'processing');
    const byStatus = async (status: string) => ids(await list(`?order_id=status&status=${status}`));

    expect(await byStatus('pending')).toStrictEqual([expiring, pending]);
    expect(await byStatus('paid')).toStrictEqual([paid]);
    expect(await byStatus('processing')).toStrictEqual([failing, processing]);
    expect(await byStatus('expired')).toStrictEqual([]);

    // Past expiry, before the expirer runs: stored statuses are unchanged, derived ones are not.
    h.clock.advance(TTL_MS + 1);
    expect(await byStatus('pending')).toStrictEqual([]);
    expect(await byStatus('expired')).toStrictEqual([expiring, pending]);
    expect(await byStatus('failed')).toStrictEqual([failing]);
    // A transfer still awaiting finality keeps an expired link processing (decisions/0003).
    expect(await byStatus('processing')).toStrictEqual([processing]);
    expect(await byStatus('paid')).toStrictEqual([paid]);
    const listed = (await list('?order_id=status&status=expired')).json().payments;
    expect(listed.map((p: { status: string }) => p.status)).toStrictEqual(['expired', 'expired']);
  });

  it('filters on created_after (strictly after) and combines filters', async () => {
    h.clock.advance(60_000);
    const cutoff = h.clock.now().toISOString();
    const atCutoff = await create({ amount: 2, currency: 'USD', order_id: 'after' });
    h.clock.advance(1);
    const later = await create({ amount: 2, currency: 'USD', order_id: 'after' });
    expect(ids(await list(`?created_after=${encodeURIComponent(cutoff)}`))).toStrictEqual([later]);
    const offset = cutoff.replace('Z', '+00:00');
    expect(ids(await list(`?created_after=${encodeURIComponent(offset)}&status=pending`))).toStrictEqual([
      later,
    ]);
    expect(ids(await list('?order_id=after'))).toStrictEqual([later, atCutoff]);
  });

  it.each([
    ['limit', '?limit=0'],
    ['limit', '?limit=101'],
    ['limit', '?limit=abc'],
    ['limit', '?limit=1.5'],
    ['limit', '?limit=-1'],
    ['status', '?status=bogus'],
    ['status', '?status=pending&status=paid'],
    ['created_after', '?created_after=yesterday'],
    ['created_after', '?created_after=2026-13-01T00:00:00Z'],
    ['order_id', '?order_id='],
    ['order_id', `?order_id=${'x'.repeat(256)}`],
    ['cursor', '?cursor=not-a-cursor'],
    ['cursor', '?cursor=%00%01'],
    ['cursor', `?cursor=${'A'.repeat(300)}`],
  ])('refuses a bad %s (%s) with 400 VALIDATION_ERROR naming it', async (field, query) => {
    const response = await list(query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field });
    expect(response.json().error).toContain(field);
  });

  it('refuses a tampered cursor, or one from another query or merchant', async () => {
    const cursor: string = (await list('?limit=1')).json().next_cursor;
    const [payload, check] = cursor.split('.') as [string, string];
    const [version, createdAtMs, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const reencode = (value: unknown) =>
      `${Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')}.${check}`;
    // One digit of the timestamp changed: still well-formed, but no longer the cursor we issued.
    const earlier = [version, createdAtMs - 1, id];
    for (const [query, key] of [
      [`?limit=1&cursor=${reencode(earlier)}`, apiKey],
      [`?limit=1&cursor=${reencode([version, createdAtMs, '00000000-0000-4000-8000-000000000000'])}`, apiKey],
      [`?limit=1&cursor=${payload}`, apiKey],
      [`?limit=1&cursor=${payload}.${'A'.repeat(22)}`, apiKey],
      [`?limit=1&status=paid&cursor=${cursor}`, apiKey],
      [`?limit=1&cursor=${cursor}`, otherKey],
    ] as const) {
      const response = await list(query, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toStrictEqual({
        error: 'cursor: is not a cursor returned for this query',
        code: 'VALIDATION_ERROR',
        field: 'cursor',
        details: [{ field: 'cursor', message: 'is not a cursor returned for this query' }],
      });
    }
    expect((await list(`?limit=1&cursor=${cursor}`)).statusCode).toBe(200);
  });

  it('requires authentication and is documented in the OpenAPI document', async () => {
    const anonymous = await h.app.inject({ method: 'GET', url: '/payments/api/payments/' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toStrictEqual({ error: 'Invalid or missing API key', code: 'UNAUTHORIZED' });
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/payments/api/payments/'].get;
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['status', 'order_id', 'created_after', 'limit', 'cursor']),
    );
    expect(operation.responses['200']).toBeDefined();
  });
});
