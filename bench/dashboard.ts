import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { scryptPasswords } from '../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../src/adapters/dashboard/pageKit.ts';
import { createUser } from '../src/app/dashboard/users.ts';
import { startApiHarness } from '../test/helpers/apiHarness.ts';
import { fmt, isMain, percentile } from './support.ts';

/**
 * The dashboard with a million payments in the store (issue "A dashboard…"):
 * - the payments list page (server-rendered HTML, first page of 50, newest first) against the API listing of
 *   the same page (`GET /payments/api/payments/?limit=50`), alternating, in the same run — goal ≤ 2× its time;
 * - the CSV export of all of them over a real socket: rows per second, and the heap it grew by against the size
 *   of the CSV it streamed (streaming keeps that ratio near zero; buffering would make it ≥ 1).
 * SQLite; the rows are cloned from one real payment by one INSERT … SELECT, so they are what the app writes.
 */
const PAYMENTS = Number(process.env.PAYLINK_BENCH_PAYMENTS ?? 1_000_000);
const ROUNDS = 200;
const PASSWORD = 'correct horse battery staple';

export async function runDashboardBench(): Promise<string[]> {
  const h = await startApiHarness('sqlite', {
    overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
  });
  try {
    const shop = await h.merchant({ name: 'Bench Shop' });
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': shop.apiKey },
      payload: { amount: '19.99', currency: 'EUR', order_id: 'template' },
    });
    const template = (created.json() as { payment_id: string }).payment_id;
    const filled = performance.now();
    await clonePayments(h.database.handle.db, template, PAYMENTS - 1);
    const fillSeconds = (performance.now() - filled) / 1000;

    const cookie = await signIn(h, shop.id);
    const api = () =>
      h.app.inject({
        method: 'GET',
        url: '/payments/api/payments/?limit=50',
        headers: { 'x-api-key': shop.apiKey },
      });
    const page = () =>
      h.app.inject({
        method: 'GET',
        url: '/dashboard/payments',
        headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
      });
    // Warm-up, and a check that both answer the page they are meant to.
    const [apiFirst, pageFirst] = [await api(), await page()];
    if (apiFirst.statusCode !== 200 || pageFirst.statusCode !== 200)
      throw new Error(`listing answered ${apiFirst.statusCode}, page ${pageFirst.statusCode}`);
    const apiMs: number[] = [];
    const pageMs: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      for (const [run, samples] of i % 2 === 0
        ? ([
            [api, apiMs],
            [page, pageMs],
          ] as const)
        : ([
            [page, pageMs],
            [api, apiMs],
          ] as const)) {
        const start = performance.now();
        await run();
        samples.push(performance.now() - start);
      }
    }
    const ratio = percentile(pageMs, 50) / percentile(apiMs, 50);

    const exported = await exportOverSocket(h, shop.apiKey);
    return [
      `store: ${fmt(PAYMENTS)} payments of one merchant (filled in ${fmt(fillSeconds, 1)} s)`,
      `API listing, 50 per page: median ${fmt(percentile(apiMs, 50), 2)} ms, p95 ${fmt(percentile(apiMs, 95), 2)} ms`,
      `dashboard payments page: median ${fmt(percentile(pageMs, 50), 2)} ms, p95 ${fmt(percentile(pageMs, 95), 2)} ms`,
      `page / listing: ${fmt(ratio, 2)}× (goal ≤ 2×) ${ratio <= 2 ? 'met' : 'NOT MET'}`,
      `CSV export: ${fmt(exported.rows)} rows, ${fmt(exported.bytes / 1e6, 1)} MB in ${fmt(exported.seconds, 1)} s (${fmt(exported.rows / exported.seconds)} rows/s)`,
      `CSV export live heap growth: ${fmt(exported.heapGrowth / 1e3)} KB = ${fmt(exported.heapGrowth / exported.bytes, 4)}× the CSV (streamed: ≪ 1)`,
    ];
  } finally {
    await h.close();
  }
}

/** `count` copies of the template payment, one second apart before it, each with its own id and deposit address. */
async function clonePayments(
  db: Awaited<ReturnType<typeof startApiHarness>>['database']['handle']['db'],
  templateId: string,
  count: number,
): Promise<void> {
  const columns = (await sql<{ name: string }>`PRAGMA table_info(payments)`.execute(db)).rows.map(
    (c) => c.name,
  );
  const value = (column: string) => {
    switch (column) {
      case 'id':
        return "printf('%08x-0000-4000-8000-%012x', n, n)";
      case 'deposit_address':
        return "printf('0x%040x', n)";
      case 'reference':
        // Unique per merchant (migration 0042's index), in the reference's alphabet: hex is a part of it.
        return "printf('PL-%04X-%04X', n >> 16, n & 65535)";
      case 'created_at':
        return "strftime('%Y-%m-%dT%H:%M:%fZ', t.created_at, '-' || n || ' seconds')";
      case 'order_id':
        return "'order-' || n";
      default:
        return `t.${column}`;
    }
  };
  // Batches of 100,000: one transaction each, so the WAL stays bounded.
  for (let from = 1; from <= count; from += 100_000) {
    const to = Math.min(count, from + 99_999);
    await sql
      .raw(
        `WITH RECURSIVE seq(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM seq WHERE n < ${to})
         INSERT INTO payments (${columns.join(', ')})
         SELECT ${columns.map(value).join(', ')} FROM seq, (SELECT * FROM payments WHERE id = '${templateId}') AS t`,
      )
      .execute(db);
  }
}

async function signIn(h: Awaited<ReturnType<typeof startApiHarness>>, merchantId: string): Promise<string> {
  const { token } = await createUser(
    { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
    { email: 'bench@shop.example', role: 'merchant', merchantId },
  );
  const form = (url: string, fields: Record<string, string>) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://api.example.test' },
      payload: new URLSearchParams(fields).toString(),
    });
  await form('/dashboard/set-password', { token, password: PASSWORD });
  const signedIn = await form('/dashboard/login', { email: 'bench@shop.example', password: PASSWORD });
  const cookie = signedIn.cookies.find((c) => c.name === SESSION_COOKIE)?.value;
  if (!cookie) throw new Error(`sign-in answered ${signedIn.statusCode}`);
  return cookie;
}

/** Downloads the whole export over a real socket, sampling the heap as it streams. */
async function exportOverSocket(h: Awaited<ReturnType<typeof startApiHarness>>, apiKey: string) {
  const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  // The live heap (after a full collection), sampled while the export streams: garbage is not what it holds.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    gc();
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 500);
  const start = performance.now();
  try {
    const { bytes, rows } = await new Promise<{ bytes: number; rows: number }>((resolve, reject) => {
      get(`${base}/payments/api/payments/export/`, { headers: { 'x-api-key': apiKey } }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`export answered ${response.statusCode}`));
        let total = 0;
        let lines = 0;
        response.on('data', (chunk: Buffer) => {
          total += chunk.length;
          for (const byte of chunk) if (byte === 10) lines += 1;
        });
        response.on('end', () => resolve({ bytes: total, rows: lines - 1 }));
        response.on('error', reject);
      }).on('error', reject);
    });
    return { bytes, rows, seconds: (performance.now() - start) / 1000, heapGrowth: heapPeak - heapBefore };
  } finally {
    clearInterval(sampler);
  }
}

if (isMain(import.meta.url)) {
  for (const line of await runDashboardBench()) process.stdout.write(`${line}\n`);
}
