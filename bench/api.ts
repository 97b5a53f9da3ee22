import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { depositPlanner } from '../src/adapters/chain/depositPlanner.ts';
import { migrateToLatest, openDatabase } from '../src/adapters/db/database.ts';
import { createMerchant } from '../src/app/merchants/merchantAdmin.ts';
import { systemClock } from '../src/app/shared/ports.ts';
import { loadConfig } from '../src/config/index.ts';
import { createLogger, jsonLogDestination } from '../src/main/logger.ts';
import { buildApiServer } from '../src/main/webServers.ts';
import { createRates, createStores } from '../src/main/wiring.ts';
import type { LoadResult, LoadRun } from './loadGenerator.ts';
import { fmt, isMain } from './support.ts';

/**
 * Merchant API throughput: autocannon against the real app and, in the same run, against reference servers that
 * do only the unavoidable part of each request (issue "Hardening", part 2):
 * - create (durable: SQLite with synchronous = FULL) against a Fastify route that validates the same body with a
 *   JSON schema and inserts one row with the same durability, one commit per request — goal ≥ 80 %;
 * - status (polled repeatedly) and convert against a Fastify route that reads one payment row by primary key
 *   from SQLite — goal ≥ 100 % each (convert does no I/O at all);
 * - a bare Fastify route returning a fixed small JSON, for the app's own /healthz.
 * PostgreSQL's figures are measured too when PAYLINK_TEST_DATABASE_URL is set (against the same references).
 *
 * Each server runs in its own child process, so the load generator never shares its event loop and the peak RSS
 * reported is the server's alone; a round starts all of them, freezes those not being measured, and stops them
 * at its end, so every round measures new processes. Every run follows a run of its reference and is divided by
 * it, so a slow minute on the shared machine moves both sides of a ratio; the rounds give the medians shown.
 * The app is the real one: real stores, request logging at info (to /dev/null), rate limiting on (with a bucket
 * no run can drain), the metrics histogram, the status read cache (repeated polls of one payment, as a merchant
 * waiting for it polls; a second server without the cache shows what a poll costs right after its payment
 * changed).
 */
const DURATION_S = 5;
const WARMUP_S = 1;
const CONNECTIONS = 10;
/**
 * Rounds of every run: the machine is shared, and one run's ratio can be off by a fifth either way (90 % to
 * 110 % for the same code in one bench), as the machine passes between a fast and a slow state (the same
 * server at 60 and at 105 µs of CPU per request within a minute, docs/performance.md). Each round's processes
 * are new, so each round is one more independent draw: seven rounds' median moves less than five's.
 */
const ROUNDS = 7;

type Scenario = 'baseline' | 'reference-select' | 'reference-insert' | 'sqlite' | 'postgres';

interface Served {
  readonly port: number;
  readonly apiKey: string;
}

type Measured = LoadResult;

const TEST_CHAIN = {
  chainId: 31337,
  tokenAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
} as const;

export async function runApiBench(): Promise<string[]> {
  const lines = [
    `api: autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per run (after ${WARMUP_S} s of warm-up), one server process each;`,
    `     ${ROUNDS} rounds, each with fresh server processes and each run right after a run of its reference; medians of the rounds shown`,
  ];
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const sqliteDir = mkdtempSync(join(tmpdir(), 'paylink-bench-'));
    cleanups.push(async () => rmSync(sqliteDir, { recursive: true, force: true }));
    const sqliteUrl = (variant: string) => `sqlite:${join(sqliteDir, `${variant}.db`)}`;
    const adminUrl = process.env.PAYLINK_TEST_DATABASE_URL;
    let postgresUrl: string | undefined;
    if (adminUrl) {
      const { url, drop } = await throwawayPostgres(adminUrl);
      cleanups.push(drop);
      postgresUrl = url;
    }

    type Run = { measured: Measured; ratio: number };
    // By name: every round has its own servers, so its own Target objects.
    const results = new Map<string, { target: Target; runs: Run[]; peakRssKb: number }>();
    const resultOf = (target: Target) => {
      let result = results.get(target.name);
      if (!result) {
        result = { target, runs: [], peakRssKb: 0 };
        results.set(target.name, result);
      }
      return result;
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      // Fresh server processes every round: one process of the same code can run a tenth faster or slower than
      // another for its whole life (docs/performance.md), and a process kept for every round would carry that
      // luck into all of them.
      const servers: BenchServer[] = [];
      // This round's targets and references, each on one of this round's servers.
      const measuredThisRound: Target[] = [];
      try {
        const targets = await startTargets(servers, sqliteUrl, postgresUrl);
        const references = [...new Set(targets.map((t) => t.reference).filter((r) => r !== undefined))];
        measuredThisRound.push(...references, ...targets);
        // Known from the first round in this order, so the rows print references first.
        for (const target of measuredThisRound) resultOf(target);
        // Reads first, creates last: the writes leave the databases busy (checkpoints, autovacuum) for a while.
        const ordered = [...targets].sort((a, b) => Number(a.writes === true) - Number(b.writes === true));
        for (const target of ordered) {
          const reference = target.reference!;
          for (const server of servers) {
            if (server === target.server || server === reference.server) server.thaw();
            else server.freeze();
          }
          // Each run right after a run of its reference: the two see the same machine.
          const base = await measure(reference.options);
          resultOf(reference).runs.push({ measured: base, ratio: 1 });
          const measured = await measure(target.options);
          resultOf(target).runs.push({
            measured,
            ratio: measured.requestsPerSecond / base.requestsPerSecond,
          });
        }
      } finally {
        const peakRss = new Map<BenchServer, number>();
        for (const server of servers) peakRss.set(server, await server.stop());
        for (const target of measuredThisRound) {
          const result = resultOf(target);
          result.peakRssKb = Math.max(result.peakRssKb, peakRss.get(target.server) ?? 0);
        }
      }
    }
    for (const { target, runs, peakRssKb } of results.values()) lines.push(row(target, runs, peakRssKb));
    if (!adminUrl) lines.push('  PostgreSQL: skipped (set PAYLINK_TEST_DATABASE_URL to measure it)');
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
  return lines;
}

/** One round's servers (pushed to `servers`, for the caller to stop) and what is measured on them. */
async function startTargets(
  servers: BenchServer[],
  sqliteUrl: (variant: string) => string,
  postgresUrl: string | undefined,
): Promise<Target[]> {
  const bareServer = await startServer('baseline');
  servers.push(bareServer);
  const bare: Target = {
    name: 'bare Fastify GET (reference)',
    server: bareServer,
    options: { url: `http://127.0.0.1:${bareServer.served.port}/` },
  };
  const insertServer = await startServer('reference-insert', sqliteUrl('reference-insert'));
  servers.push(insertServer);
  const insertReference: Target = {
    name: 'validated durable insert (reference)',
    server: insertServer,
    options: {
      url: `http://127.0.0.1:${insertServer.served.port}/`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: CREATE_BODY,
    },
    writes: true,
  };
  const shared = { bare, insertReference };
  const targets = await databaseTargets('SQLite', 'sqlite', sqliteUrl, shared, servers, true);
  if (postgresUrl) {
    targets.push(
      ...(await databaseTargets('PostgreSQL', 'postgres', () => postgresUrl, shared, servers, false)),
    );
  }
  return targets;
}

const CREATE_BODY = JSON.stringify({ amount: 25, currency: 'EUR', order_id: 'bench' });

interface BenchServer {
  readonly served: Served;
  freeze(): void;
  thaw(): void;
  /** Ends the server; resolves to its peak RSS in KiB. */
  stop(): Promise<number>;
}

interface Target {
  readonly name: string;
  readonly server: BenchServer;
  readonly options: autocannon.Options;
  /** What its ratio is measured against: run right before it, every round. */
  readonly reference?: Target;
  readonly goal?: number;
  readonly writes?: boolean;
}

/**
 * On one database: the app's /healthz (no I/O: how much of the gap is framework, hooks and logging), status
 * (polled repeatedly, as a merchant waiting for a payment does: the status cache answers), convert, create, and,
 * on a second server with the status cache off, status as it costs right after its payment changed. The
 * primary-key reference reads the status payment's own row from the same database file.
 */
async function databaseTargets(
  label: string,
  scenario: 'sqlite' | 'postgres',
  databaseUrl: (variant: 'cached' | 'uncached') => string,
  shared: { bare: Target; insertReference: Target },
  servers: BenchServer[],
  withGoals: boolean,
): Promise<Target[]> {
  const start = async (variant: 'cached' | 'uncached') => {
    const server = await startServer(scenario, databaseUrl(variant), variant);
    servers.push(server);
    const base = `http://127.0.0.1:${server.served.port}`;
    const headers = { 'x-api-key': server.served.apiKey, 'content-type': 'application/json' };
    const paymentId = await createOne(base, headers, CREATE_BODY);
    return { server, base, headers, paymentId, statusUrl: `${base}/payments/api/status/${paymentId}/` };
  };
  const cached = await start('cached');
  const uncached = await start('uncached');
  const apiKey = (s: typeof cached) => ({ 'x-api-key': s.server.served.apiKey });
  // A primary-key read of the status payment's own row from the same database: the goal is stated against
  // SQLite's; on PostgreSQL the same read over a pool is that database's yardstick.
  const selectServer = await startServer('reference-select', databaseUrl('cached'));
  servers.push(selectServer);
  const selectReference: Target = {
    name: `${label}: primary-key SELECT (reference)`,
    server: selectServer,
    options: { url: `http://127.0.0.1:${selectServer.served.port}/${cached.paymentId}` },
  };
  const goal = (value: number) => (withGoals ? { goal: value } : {});
  return [
    {
      name: `${label} app GET /healthz`,
      server: cached.server,
      options: { url: `${cached.base}/healthz` },
      reference: shared.bare,
    },
    {
      name: `${label} GET status`,
      server: cached.server,
      options: { url: cached.statusUrl, headers: apiKey(cached) },
      reference: selectReference,
      ...goal(1),
    },
    {
      name: `${label} GET convert`,
      server: cached.server,
      options: {
        url: `${cached.base}/payments/api/convert/?amount=100.10&currency=EUR`,
        headers: apiKey(cached),
      },
      reference: selectReference,
      ...goal(1),
    },
    {
      name: `${label} GET status, uncached`,
      server: uncached.server,
      options: { url: uncached.statusUrl, headers: apiKey(uncached) },
      reference: selectReference,
    },
    {
      name: `${label} POST create`,
      server: cached.server,
      options: {
        url: `${cached.base}/payments/api/create/`,
        method: 'POST',
        headers: cached.headers,
        body: CREATE_BODY,
      },
      reference: shared.insertReference,
      ...goal(0.8),
      writes: true,
    },
  ];
}

async function createOne(base: string, headers: Record<string, string>, body: string): Promise<string> {
  const created = await fetch(`${base}/payments/api/create/`, { method: 'POST', headers, body });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
  return ((await created.json()) as { payment_id: string }).payment_id;
}

function row(
  target: Target,
  runs: readonly { measured: Measured; ratio: number }[],
  peakRssKb: number,
): string {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const ratio = median(runs.map((r) => r.ratio));
  const rps = median(runs.map((r) => r.measured.requestsPerSecond));
  const p99 = median(runs.map((r) => r.measured.p99Ms));
  const failed = runs.reduce((n, r) => n + r.measured.non2xx + r.measured.errors, 0);
  const { goal } = target;
  const verdict =
    goal === undefined ? 'reference' : `goal ≥ ${goal * 100} %: ${ratio >= goal ? 'met' : 'NOT met'}`;
  // Each round's ratio, so the spread is in view; the baseline's own runs are its many rounds.
  const spread =
    goal === undefined && ratio === 1 ? '' : ` (${runs.map((r) => fmt(r.ratio * 100, 0)).join('/')})`;
  const failures = failed > 0 ? `, ${fmt(failed)} non-2xx or errors` : '';
  return `  ${target.name.padEnd(40)} ${fmt(rps).padStart(8)} req/s  ${fmt(ratio * 100, 1).padStart(5)} %${spread}  p99 ${fmt(p99, 1)} ms  peak RSS ${fmt(peakRssKb / 1024)} MiB  (${verdict}${failures})`;
}

/**
 * One run, by a load generator in a fresh child process (bench/loadGenerator.ts): a long bench no longer carries
 * the heap of the runs before into the client, which, when it is the slower side, is what the ratio measures.
 */
async function measure(options: autocannon.Options): Promise<Measured> {
  const run: LoadRun = {
    options: { connections: CONNECTIONS, ...options },
    warmupSeconds: WARMUP_S,
    seconds: DURATION_S,
  };
  const child = fork(fileURLToPath(new URL('./loadGenerator.ts', import.meta.url)), [JSON.stringify(run)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<Measured>((resolve, reject) => {
    child.once('message', (message) => resolve(message as LoadResult));
    child.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)));
  });
}

/** Starts a server in a child process. */
async function startServer(
  scenario: Scenario,
  databaseUrl?: string,
  statusCache: 'cached' | 'uncached' = 'cached',
): Promise<BenchServer> {
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
    // A server not being measured is frozen: idle servers' timers (metrics, pollers) would take turns on the CPU.
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    stop: () =>
      new Promise<number>((resolve) => {
        child.kill('SIGCONT');
        child.once('message', (message) => resolve((message as { maxRssKb: number }).maxRssKb));
        child.send('stop');
      }),
  };
}

/** The child: one server, until the parent says stop. */
async function serve(scenario: Scenario, databaseUrl: string, statusCache: string): Promise<void> {
  const send = (message: unknown) => process.send?.(message);
  // CPU time the server spent so far (user + system, µs): `cpu` asks for it, to cost a request where the
  // machine is too noisy for throughput alone.
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ cpuMicros: user + system });
    }
  });
  const reference = referenceApp(scenario, databaseUrl);
  if (reference) {
    const app = await reference;
    await app.listen({ host: '127.0.0.1', port: 0 });
    send({ port: (app.server.address() as { port: number }).port, apiKey: '' });
    process.on('message', async (message) => {
      if (message !== 'stop') return;
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
    // Experiments: PAYLINK_BENCH_ENV='{"PAYLINK_LOG_LEVEL":"silent"}' measures the app without one of its parts.
    ...(JSON.parse(process.env.PAYLINK_BENCH_ENV ?? '{}') as Record<string, string>),
  });
  // Production logging (a line per request at info, with redaction, written as the service writes it), into
  // /dev/null.
  const logger = createLogger(config.logLevel, jsonLogDestination('/dev/null'));
  const stores = createStores(handle);
  const clock = systemClock;
  const paymentChanges = handle.followPaymentChanges(logger);
  const app = await buildApiServer({
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
  process.on('message', async (message) => {
    if (message !== 'stop') return;
    await app.close();
    await paymentChanges.close();
    await handle.close();
    send({ maxRssKb: process.resourceUsage().maxRSS });
    process.exit(0);
  });
}

/**
 * The reference servers: only the unavoidable part of a request, with Fastify's defaults (no logging).
 * - baseline: a fixed small JSON;
 * - reference-select: one payment row by primary key (a prepared statement), sent as JSON;
 * - reference-insert: the create body validated by a JSON schema (Fastify's own validator), one row inserted per
 *   request, each its own commit, with the store's durability (WAL, synchronous = FULL).
 * Undefined for the app's own scenarios.
 */
function referenceApp(scenario: Scenario, databaseUrl: string): Promise<FastifyInstance> | undefined {
  if (scenario === 'baseline') {
    const app = Fastify();
    app.get('/', async () => ({ hello: 'world', n: 1 }));
    return Promise.resolve(app);
  }
  if (scenario === 'reference-select') {
    const app = Fastify();
    if (databaseUrl.startsWith('sqlite:')) {
      const sqlite = new SQLite(databaseUrl.slice('sqlite:'.length), { readonly: true });
      const byId = sqlite.prepare('select * from payments where id = ?');
      app.get<{ Params: { id: string } }>('/:id', async (request, reply) => {
        const row = byId.get(request.params.id);
        return row ?? reply.status(404).send({ error: 'not found' });
      });
      app.addHook('onClose', async () => sqlite.close());
    } else {
      // PostgreSQL's own yardstick: the same read over a pool (the goal itself is stated against SQLite's).
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
      app.get<{ Params: { id: string } }>('/:id', async (request, reply) => {
        const { rows } = await pool.query('select * from payments where id = $1', [request.params.id]);
        return rows[0] ?? reply.status(404).send({ error: 'not found' });
      });
      app.addHook('onClose', async () => pool.end());
    }
    return Promise.resolve(app);
  }
  if (scenario === 'reference-insert') {
    const sqlite = new SQLite(databaseUrl.slice('sqlite:'.length));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.exec(
      'create table if not exists payments (id text primary key, amount text not null, currency text not null, order_id text, created_at text not null)',
    );
    const insert = sqlite.prepare(
      'insert into payments (id, amount, currency, order_id, created_at) values (?, ?, ?, ?, ?)',
    );
    const app = Fastify();
    app.post<{ Body: { amount: number; currency: string; order_id?: string } }>(
      '/',
      {
        schema: {
          body: {
            type: 'object',
            required: ['amount', 'currency'],
            additionalProperties: false,
            properties: {
              amount: { type: 'number', exclusiveMinimum: 0 },
              currency: { type: 'string', minLength: 3, maxLength: 5 },
              order_id: { type: 'string', maxLength: 255 },
            },
          },
        },
      },
      async (request, reply) => {
        const id = randomUUID();
        const { amount, currency, order_id: orderId } = request.body;
        insert.run(id, String(amount), currency, orderId ?? null, new Date().toISOString());
        return reply.status(201).send({ id });
      },
    );
    app.addHook('onClose', async () => sqlite.close());
    return Promise.resolve(app);
  }
  return undefined;
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
