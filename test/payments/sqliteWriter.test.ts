/**
 * SQLite's writer (src/adapters/db/sqliteWriter.ts): a create's writes — the payment, its idempotency key —
 * committed on a connection and thread of their own, grouped, each answered only once committed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rowValues } from '../../src/adapters/db/createWrites.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/adapters/db/database.ts';
import { SqliteWriteError, threadedSqliteWriter } from '../../src/adapters/db/sqliteWriter.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { PaymentReferenceTaken } from '../../src/app/payments/ports.ts';
import { createStores } from '../../src/main/wiring.ts';
import { testPayment } from '../fakes/paymentFixture.ts';

const SYNCHRONOUS_FULL = 2;

describe('the SQLite writer', { timeout: 60_000 }, () => {
  let dir: string;
  let url: string;
  let handle: DatabaseHandle;
  let stores: ReturnType<typeof createStores>;
  let merchantId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paylink-writer-'));
    url = `sqlite:${join(dir, 'paylink.db')}`;
    handle = openDatabase(url);
    await migrateToLatest(handle.db);
    stores = createStores(handle);
    const created = await createMerchant(
      { merchants: stores.merchants, clock: { now: () => new Date() }, webhookAllowPrivate: false },
      {
        name: 'Writer Shop',
        wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        webhookUrl: 'https://shop.example.test/hooks',
        commissionPercent: '1',
      },
    );
    merchantId = created.merchant.id;
  });
  afterEach(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const payment = (n: number) => testPayment(n, { merchantId });
  /** WAL frames not yet checkpointed: every commit appends the pages it changed. */
  const walFrames = async () => {
    const { rows } = await sql<{ log: number }>`pragma wal_checkpoint(PASSIVE)`.execute(handle.db);
    return Number(rows[0]!.log);
  };

  it('answers a create once its payment is committed, readable at once on the main connection', async () => {
    await stores.payments.insert(payment(1));
    const found = await stores.payments.findById(payment(1).id);
    expect(found).toEqual(payment(1));
  });

  it('commits the payments that queue up while it commits together, in fewer commits than payments', async () => {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(handle.db);
    const before = await walFrames();
    const count = 200;
    await Promise.all(Array.from({ length: count }, (_, i) => stores.payments.insert(payment(100 + i))));
    const { rows } = await sql<{ n: number }>`select count(*) as n from payments`.execute(handle.db);
    expect(Number(rows[0]!.n)).toBe(count);
    // A commit of one payment writes at least the table's page and its primary key index's (seven B-trees in
    // all): one commit each would append at least two frames per payment.
    expect((await walFrames()) - before).toBeLessThan(count);
  });

  it('fails only the create whose row is refused; the others it was grouped with are committed', async () => {
    await stores.payments.insert(payment(1));
    const outcomes = await Promise.allSettled([
      stores.payments.insert(payment(2)),
      stores.payments.insert(payment(1)),
      stores.payments.insert(payment(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason;
    // The same row has the same id and the same reference: SQLite names whichever unique index it checks first,
    // and the store tells a reference's as the port says (a create would draw a new id).
    if (refused instanceof PaymentReferenceTaken) expect(refused.reference).toBe(payment(1).reference);
    else {
      expect(refused).toBeInstanceOf(SqliteWriteError);
      expect(refused.code).toMatch(/^SQLITE_CONSTRAINT_(PRIMARYKEY|UNIQUE)$/);
    }
    for (const n of [2, 3]) expect(await stores.payments.findById(payment(n).id)).toBeDefined();
  });

  it('completes an idempotency key in the transaction of its payment', async () => {
    const now = new Date();
    await stores.idempotency.claim({
      merchantId,
      mode: 'live',
      key: 'order-7',
      requestHash: 'h',
      now,
      expiresAt: new Date(now.getTime() + 60_000),
      staleClaimBefore: new Date(now.getTime() - 60_000),
    });
    await stores.payments.insert(payment(7), { idempotencyKey: 'order-7' });
    const { rows } = await sql<{
      payment_id: string;
    }>`select payment_id from idempotency_keys where key = 'order-7'`.execute(handle.db);
    expect(rows[0]!.payment_id).toBe(payment(7).id);
  });

  it('commits with synchronous = FULL in WAL mode, like the main connection', async () => {
    expect(await handle.sqliteWriter!.durability()).toEqual({
      synchronous: SYNCHRONOUS_FULL,
      journalMode: 'wal',
    });
  });

  it('on close, commits the payments already handed to it before it stops', async () => {
    const inserts = Array.from({ length: 20 }, (_, i) => stores.payments.insert(payment(300 + i)));
    await handle.close();
    await Promise.all(inserts);
    handle = openDatabase(url);
    const { rows } = await sql<{ n: number }>`select count(*) as n from payments`.execute(handle.db);
    expect(Number(rows[0]!.n)).toBe(20);
  });

  it('starts its thread again when asked after it stopped', async () => {
    const writer = threadedSqliteWriter(url.slice('sqlite:'.length));
    expect((await writer.durability()).journalMode).toBe('wal');
    await writer.close();
    expect((await writer.durability()).journalMode).toBe('wal');
    await writer.close();
  });

  /** Runs a module script from the repository's root; its exit code and what it printed. */
  const runScript = async (script: string) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 30_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    return { code, stdout };
  };
  const insertingScript = (then: string) => `
      import { openDatabase } from './src/adapters/db/database.ts';
      import { createStores } from './src/main/wiring.ts';
      import { testPayment } from './test/fakes/paymentFixture.ts';
      const handle = openDatabase(${JSON.stringify(url)});
      await createStores(handle).payments.insert(testPayment(900, { merchantId: ${JSON.stringify(merchantId)} }));
      process.stdout.write('inserted');
      ${then}
    `;

  it('does not keep a process alive once idle', async () => {
    // A CLI command that created a payment and forgot to close the database must still exit.
    expect(await runScript(insertingScript(''))).toEqual({ code: 0, stdout: 'inserted' });
  });

  it('holds the process until its thread has ended when closed last', async () => {
    // A server's shutdown closes the database after its listeners: nothing else keeps the process alive while
    // the thread ends, and a process that ran out of work awaiting it would exit with 13 (unsettled await).
    const closing = insertingScript(`await handle.close(); process.stdout.write(' closed');`);
    expect(await runScript(closing)).toEqual({ code: 0, stdout: 'inserted closed' });
  });

  it('refuses a row whose columns differ from the first one’s', () => {
    expect(rowValues(['id', 'kind'], { id: 'a', kind: 'payment' })).toEqual(['a', 'payment']);
    expect(() => rowValues(['id', 'kind'], { kind: 'payment', id: 'a' })).toThrow(/columns differ/);
    expect(() => rowValues(['id', 'kind'], { id: 'a' })).toThrow(/columns differ/);
    expect(() => rowValues(['id', 'kind'], { id: 'a', kind: 'payment', extra: null })).toThrow(
      /columns differ/,
    );
  });
});

describe('the SQLite writer of an in-memory database', () => {
  it('commits on the caller’s connection: another would see another database', async () => {
    const handle = openDatabase('sqlite::memory:');
    try {
      await migrateToLatest(handle.db);
      const stores = createStores(handle);
      const { merchant } = await createMerchant(
        { merchants: stores.merchants, clock: { now: () => new Date() }, webhookAllowPrivate: false },
        {
          name: 'Memory Shop',
          wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          webhookUrl: 'https://shop.example.test/hooks',
          commissionPercent: '1',
        },
      );
      const stored = testPayment(1, { merchantId: merchant.id });
      await stores.payments.insert(stored);
      expect(await stores.payments.findById(stored.id)).toEqual(stored);
    } finally {
      await handle.close();
    }
  });
});
