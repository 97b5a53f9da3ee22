import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FollowedPaymentChanges,
  PAYMENT_CHANGES_APPLICATION_NAME,
  PAYMENT_CHANGES_CHANNEL,
  postgresPaymentChanges,
} from '../../src/adapters/db/paymentChanges.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { createTestDatabase, dialects, POSTGRES_ADMIN_URL, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { eventually } from '../helpers/net.ts';

const PAYMENT_A = '11111111-1111-4111-8111-111111111111';

/** Change marks (docs/decisions/0010-status-read-cache.md): what tells the status read cache a payment changed. */
describe.each(dialects)('payment change marks on %s', (dialect) => {
  let h: ApiHarness;
  let changes: FollowedPaymentChanges;
  let apiKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    apiKey = (await h.merchant()).apiKey;
    changes = h.database.handle.followPaymentChanges(capturingLogger().logger);
    await eventually(
      async () => changes.markOf(PAYMENT_A),
      (mark) => mark !== null,
    );
  });
  afterAll(async () => {
    await changes.close();
    await h.close();
  });

  const create = async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ amount: 10, currency: 'USD' }),
    });
    return (response.json() as { payment_id: string }).payment_id;
  };

  it('moves a payment’s mark when its row changes, and only its own on PostgreSQL', async () => {
    const [a, b] = [await create(), await create()];
    const [markA, markB] = [changes.markOf(a), changes.markOf(b)];
    await h.database.handle.db
      .updateTable('payments')
      .set({ order_id: 'changed' })
      .where('id', '=', a)
      .execute();
    const moved = await eventually(
      async () => changes.markOf(a),
      (mark) => mark !== markA,
      100,
      50,
    );
    expect(moved).not.toBeNull();
    expect(moved).not.toBe(markA);
    if (dialect === 'postgres') expect(changes.markOf(b)).toBe(markB);
  });
});

describe.runIf(POSTGRES_ADMIN_URL)('payment change marks: the PostgreSQL listener', () => {
  let database: TestDatabase;
  let changes: FollowedPaymentChanges;
  let notifier: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    changes = postgresPaymentChanges(database.url, capturingLogger().logger, { retryMs: 300, maxTracked: 2 });
    notifier = new pg.Client({ connectionString: database.url });
    await notifier.connect();
    await eventually(
      async () => changes.markOf(PAYMENT_A),
      (mark) => mark !== null,
    );
  });
  afterAll(async () => {
    await notifier.end();
    await changes.close();
    await database.drop();
  });

  const notify = async (paymentId: string) => {
    const before = changes.markOf(paymentId);
    await notifier.query('select pg_notify($1, $2)', [PAYMENT_CHANGES_CHANNEL, paymentId]);
    await eventually(
      async () => changes.markOf(paymentId),
      (mark) => mark !== before,
      100,
      50,
    );
  };

  it('never gives a payment a mark it had before a change, though it remembers only the last few', async () => {
    const history = new Map<string, (string | null)[]>();
    for (const id of ['p1', 'p2', 'p1', 'p3', 'p4', 'p2', 'p5', 'p1']) {
      history.set(id, [...(history.get(id) ?? []), changes.markOf(id)]);
      await notify(id);
      // Every mark recorded was taken just before a change: none may come back, forgotten payment or not.
      for (const [other, superseded] of history) expect(superseded).not.toContain(changes.markOf(other));
    }
  });

  it('has no marks while not listening, and new ones once listening again', async () => {
    const before = changes.markOf(PAYMENT_A);
    expect(before).not.toBeNull();
    const { rows } = await notifier.query(
      `select pg_terminate_backend(pid) as terminated from pg_stat_activity
       where datname = current_database() and application_name = $1`,
      [PAYMENT_CHANGES_APPLICATION_NAME],
    );
    expect(rows).toStrictEqual([{ terminated: true }]);
    const lost = await eventually(
      async () => changes.markOf(PAYMENT_A),
      (mark) => mark === null,
      100,
      20,
    );
    expect(lost).toBeNull();
    const again = await eventually(
      async () => changes.markOf(PAYMENT_A),
      (mark) => mark !== null,
      100,
      50,
    );
    expect(again).not.toBeNull();
    expect(again).not.toBe(before);
  });
});
