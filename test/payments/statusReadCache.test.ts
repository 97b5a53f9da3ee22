import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository } from '../../src/adapters/db/paymentRepository.ts';
import type { PaymentStore } from '../../src/app/payments/ports.ts';
import type { PaymentStatus } from '../../src/domain/paymentStatus.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { eventually } from '../helpers/net.ts';

/**
 * The status read cache against a real database (docs/decisions/0010-status-read-cache.md): a repeated read
 * costs no query, and any change to the payment — by this process, another connection or another process —
 * shows in the next read (on PostgreSQL, once its notification arrives).
 */
describe.each(dialects)('status read cache on %s', (dialect) => {
  let h: ApiHarness;
  let apiKey: string;
  let reads = 0;
  let block = 0n;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      // Counts the database reads behind status responses.
      overrides: (database) => {
        const payments = paymentRepository(database.handle);
        const findForMerchant: PaymentStore['findForMerchant'] = (...args) => {
          reads += 1;
          return payments.findForMerchant(...args);
        };
        return { payments: { ...payments, findForMerchant } };
      },
    });
    apiKey = (await h.merchant()).apiKey;
  });
  afterAll(() => h.close());

  const create = async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ amount: 10, currency: 'USD' }),
    });
    expect(response.statusCode).toBe(201);
    return (response.json() as { payment_id: string }).payment_id;
  };
  const status = async (id: string) => {
    const response = await h.app.inject({
      method: 'GET',
      url: `/payments/api/status/${id}/`,
      headers: { 'x-api-key': apiKey },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    return response.json() as { status: PaymentStatus; amount_received: string; usdc_amount: string };
  };
  /** A final transfer of the whole amount, recorded as the watcher records one, with the status it derives. */
  const pay = async (id: string) => {
    block += 1n;
    const payment = (await h.stores.payments.findById(id))!;
    await h.stores.ledger.transaction(async (tx) => {
      await tx.insertTransfers([
        {
          id: `${TEST_CHAIN.chainId}:0xblock${block}:0`,
          chainId: TEST_CHAIN.chainId,
          paymentId: id,
          txHash: `0x${block.toString(16).padStart(64, '0')}`,
          logIndex: 0,
          blockNumber: block,
          blockHash: `0xblock${block}`,
          blockTimestamp: h.clock.now(),
          tokenAddress: TEST_CHAIN.tokenAddress.toLowerCase(),
          tokenSymbol: 'USDC',
          fromAddress: '0x0000000000000000000000000000000000000001',
          toAddress: payment.deposit!.depositAddress.toLowerCase(),
          amountBaseUnits: payment.quote.usdcBaseUnits,
          final: true,
          orphaned: false,
        },
      ]);
    });
  };
  /** Polls while a change may still be on its way (PostgreSQL notifies asynchronously; SQLite counts at once). */
  const statusOnceChanged = (id: string, accept: (s: { status: PaymentStatus }) => boolean) =>
    dialect === 'sqlite' ? status(id) : eventually(() => status(id), accept, 100, 50);

  it('answers a repeated read without querying, with the same body', async () => {
    const id = await create();
    const first = await status(id);
    const readsAfterFirst = reads;
    expect(await status(id)).toStrictEqual(first);
    expect(await status(id)).toStrictEqual(first);
    expect(reads).toBe(readsAfterFirst);
  });

  it('shows a transfer recorded after the read was cached', async () => {
    const id = await create();
    const before = await status(id);
    expect(before.status).toBe('pending');
    await status(id);
    await pay(id);
    const after = await statusOnceChanged(id, (s) => s.status === 'paid');
    expect(after.status).toBe('paid');
    expect(after.amount_received).toBe(before.usdc_amount);
  });

  it('shows a change written by another connection, as the CLI or another process would', async () => {
    const id = await create();
    expect((await status(id)).status).toBe('pending');
    await status(id);
    const orderId = 'written-elsewhere';
    if (dialect === 'sqlite') {
      const other = new SQLite(h.database.url.slice('sqlite:'.length));
      other.prepare('update payments set order_id = ? where id = ?').run(orderId, id);
      other.close();
    } else {
      const other = new pg.Client({ connectionString: h.database.url });
      await other.connect();
      await other.query('update payments set order_id = $1 where id = $2', [orderId, id]);
      await other.end();
    }
    // Seen within SQLite's poll of data_version, or once PostgreSQL's notification arrives.
    const after = (await eventually(
      () => status(id),
      (s) => (s as { order_id?: string }).order_id === orderId,
      100,
      50,
    )) as { order_id?: string };
    expect(after.order_id).toBe(orderId);
  });

  it('shows expiry the moment the link expires, though nothing was written', async () => {
    const id = await create();
    expect((await status(id)).status).toBe('pending');
    await status(id);
    h.clock.advance(24 * 60 * 60_000);
    expect((await status(id)).status).toBe('expired');
  });
});
