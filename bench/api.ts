import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { depositPlanner } from '../src/adapters/chain/depositPlanner.ts';
import { migrateToLatest, openDatabase } from '../src/adapters/db/database.ts';
import { buildApp } from '../src/adapters/http/buildApp.ts';
import { createMerchant } from '../src/app/merchants/merchantAdmin.ts';
import { systemClock } from '../src/app/ports.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/main/logger.ts';
import { createRates, createStores } from '../src/main/wiring.ts';
import { fmt, isMain } from './support.ts';

/**
 * Merchant API throughput (issue 6): autocannon against a bare Fastify route returning a fixed small JSON (the
 * baseline), then the status endpoint and create on SQLite, and on PostgreSQL when PAYLINK_TEST_DATABASE_URL is
 * set — same machine, same run. Goals: status ≥ 50 % of the baseline's requests/s, create ≥ 25 % on SQLite and
 * ≥ 15 % on PostgreSQL.
 *
 * Each server runs in its own child process, so the load generator never shares its event loop and the peak RSS
 * reported is the server's alone. The app is the real one: real stores, request logging at info (to /dev/null),
 * rate limiting on (with a bucket no run can drain), the metrics histogram, the status read cache (repeated
 * polls of one payment, as a merchant waiting for it polls; a second server without the cache shows what a
 * poll costs right after its payment changed).
 */
const DURATION_S = 5;
const WARMUP_S = 1;
const CONNECTIONS = 10;

type Scenario = 'baseline' | 'sqlite' | 'postgres';

interface Served {
  readonly port: number;
  readonly apiKey: string;
}

interface Measured {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

const TEST_CHAIN = {
  chainId: 31337,
  tokenAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
} as const;

export async function runApiBench(): Promise<string[]> {
  const lines = [
    `api: autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per run (after ${WARMUP_S} s of warm-up), one server process each`,
  ];
  const baselineServer = await startServer('baseline');
  const baseline = await measure('bare Fastify GET (baseline)', {
    url: `http://127.0.0.1:${baselineServer.served.port}/`,
  });
  const baselineRss = await baselineServer.stop();
  lines.push(row(baseline, baseline.requestsPerSecond, undefined, baselineRss));

  const sqliteDir = mkdtempSync(join(tmpdir(), 'paylink-bench-'));
  try {
    lines.push(...(await benchDatabase('SQLite', `sqlite:${join(sqliteDir, 'bench.db')}`, baseline, 0.25)));
  } finally {
    rmSync(sqliteDir, { recursive: true, force: true });
  }

  const adminUrl = process.env.PAYLINK_TEST_DATABASE_URL;
  if (adminUrl) {
    const { url, drop } = await throwawayPostgres(adminUrl);
    try {
      lines.push(...(await benchDatabase('PostgreSQL', url, baseline, 0.15)));
    } finally {
      await drop();
    }
  } else {
    lines.push('  PostgreSQL: skipped (set PAYLINK_TEST_DATABASE_URL to measure it)');
  }
  return lines;
}

async function benchDatabase(label: string, databaseUrl: string, baseline: Measured, createGoal: number) {
  const scenario = label === 'SQLite' ? 'sqlite' : 'postgres';
  const server = await startServer(scenario, databaseUrl);
  const base = `http://127.0.0.1:${server.served.port}`;
  const headers = { 'x-api-key': server.served.apiKey, 'content-type': 'application/json' };
  const body = JSON.stringify({ amount: 25, currency: 'EUR', order_id: 'bench' });
  const paymentId = await createOne(base, headers, body);

  // The same app on a route without I/O: how much of the gap is framework, hooks and logging, not the database.
  const health = await measure(`${label} app GET /healthz`, { url: `${base}/healthz` });
  const status = await measure(`${label} GET status`, {
    url: `${base}/payments/api/status/${paymentId}/`,
    headers: { 'x-api-key': server.served.apiKey },
  });
  const create = await measure(`${label} POST create`, {
    url: `${base}/payments/api/create/`,
    method: 'POST',
    headers,
    body,
  });
  const rss = await server.stop();

  // The same read with the status cache off: what a poll costs when its payment has just changed.
  const uncachedServer = await startServer(scenario, databaseUrl, 'uncached');
  const uncachedBase = `http://127.0.0.1:${uncachedServer.served.port}`;
  const uncachedHeaders = { ...headers, 'x-api-key': uncachedServer.served.apiKey };
  const uncachedId = await createOne(uncachedBase, uncachedHeaders, body);
  const uncached = await measure(`${label} GET status, uncached`, {
    url: `${uncachedBase}/payments/api/status/${uncachedId}/`,
    headers: { 'x-api-key': uncachedServer.served.apiKey },
  });
  const uncachedRss = await uncachedServer.stop();
  return [
    row(health, baseline.requestsPerSecond, undefined, rss),
    row(status, baseline.requestsPerSecond, 0.5, rss),
    row(uncached, baseline.requestsPerSecond, undefined, uncachedRss),
    row(create, baseline.requestsPerSecond, createGoal, rss),
  ];
}

async function createOne(base: string, headers: Record<string, string>, body: string): Promise<string> {
  const created = await fetch(`${base}/payments/api/create/`, { method: 'POST', headers, body });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { payment_id: string }).payment_id;
}

function row(m: Measured, baselineRps: number, goal: number | undefined, peakRssKb: number): string {
  const ratio = m.requestsPerSecond / baselineRps;
  const verdict =
    goal === undefined ? 'reference' : `goal ≥ ${goal * 100} %: ${ratio >= goal ? 'met' : 'NOT met'}`;
  const failures = m.non2xx + m.errors > 0 ? `, ${fmt(m.non2xx)} non-2xx, ${fmt(m.errors)} errors` : '';
  return `  ${m.name.padEnd(30)} ${fmt(m.requestsPerSecond).padStart(8)} req/s  ${fmt(ratio * 100, 1).padStart(5)} %  p99 ${fmt(m.p99Ms, 1)} ms  peak RSS ${fmt(peakRssKb / 1024)} MiB  (${verdict}${failures})`;
}

async function measure(name: string, options: autocannon.Options): Promise<Measured> {
  const common = { connections: CONNECTIONS, ...options };
  await autocannon({ ...common, duration: WARMUP_S });
  const result = await autocannon({ ...common, duration: DURATION_S });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Starts a server in a child process; `stop` ends it and returns its peak RSS in KiB. */
async function startServer(
  scenario: Scenario,
  databaseUrl?: string,
  statusCache: 'cached' | 'uncached' = 'cached',
): Promise<{ served: Served; stop: () => Promise<number> }> {
  const args = ['--serve', scenario, databaseUrl ?? '', statusCache];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), args, {
    // PAYLINK_BENCH_PROFILE=<dir>: each server writes a V8 CPU profile there (open it in Chrome DevTools).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.PAYLINK_BENCH_PROFILE
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PAYLINK_BENCH_PROFILE}`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const served = await new Promise<Served>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Served));
    child.once('exit', (code) => reject(new Error(`bench server (${scenario}) exited with ${code}`)));
  });
  return {
    served,
    stop: () =>
      new Promise<number>((resolve) => {
        child.once('message', (message) => resolve((message as { maxRssKb: number }).maxRssKb));
        child.send('stop');
      }),
  };
}

/** The child: one server, until the parent says stop. */
async function serve(scenario: Scenario, databaseUrl: string, statusCache: string): Promise<void> {
  const send = (message: unknown) => process.send?.(message);
  if (scenario === 'baseline') {
    const app = Fastify();
    app.get('/', async () => ({ hello: 'world', n: 1 }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    send({ port: (app.server.address() as { port: number }).port, apiKey: '' });
    process.once('message', async () => {
      await app.close();
      send({ maxRssKb: process.resourceUsage().maxRSS });
      process.exit(0);
    });
    return;
  }
  const handle = openDatabase(databaseUrl);
  await migrateToLatest(handle.db);
  const config = loadConfig({
    PAYLINK_DATABASE_URL: databaseUrl,
    PAYLINK_NETWORK: 'sandbox',
    PAYLINK_RATES: 'static:USD=1,EUR=1.08',
    PAYLINK_CHECKOUT_URL: 'https://pay.example.test',
    PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'false',
    PAYLINK_RATE_LIMIT: '1000000/s',
    PAYLINK_RATE_LIMIT_BURST: '1000000',
    PAYLINK_LOG_LEVEL: 'info',
    PAYLINK_STATUS_CACHE_ENTRIES: statusCache === 'uncached' ? '0' : '10000',
  });
  // Production logging (two lines per request at info, with redaction), into /dev/null.
  const logger = createLogger(config.logLevel, pino.destination({ dest: '/dev/null', sync: false }));
  const stores = createStores(handle);
  const clock = systemClock;
  const paymentChanges = handle.followPaymentChanges(logger);
  const app = await buildApp({
    ...stores,
    paymentChanges,
    deposits: { live: depositPlanner(TEST_CHAIN) },
    rates: createRates(config, clock, logger),
    clock,
    logger,
    config,
  });
  const { apiKey } = await createMerchant(
    { merchants: stores.merchants, clock, webhookAllowPrivate: false },
    {
      name: 'Bench',
      wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      webhookUrl: 'https://merchant.example.test/hooks',
      commissionPercent: '1',
    },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  send({ port: (app.server.address() as { port: number }).port, apiKey });
  process.once('message', async () => {
    await app.close();
    await paymentChanges.close();
    await handle.close();
    send({ maxRssKb: process.resourceUsage().maxRSS });
    process.exit(0);
  });
}

async function throwawayPostgres(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `paylink_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt !== -1) {
  await serve(
    process.argv[serveAt + 1] as Scenario,
    process.argv[serveAt + 2] ?? '',
    process.argv[serveAt + 3] ?? '',
  );
} else if (isMain(import.meta.url)) {
  for (const line of await runApiBench()) process.stdout.write(`${line}\n`);
}
