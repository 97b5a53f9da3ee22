import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Address, createNonceManager, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { jsonRpc } from 'viem/nonce';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { openDatabase } from '../../src/adapters/db/database.ts';
import { deploySandboxContracts, sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { builtPaylinkBin } from '../helpers/builtCli.ts';
import { runCli } from '../helpers/cli.ts';
import { createEmptyDatabase, dialects } from '../helpers/database.ts';
import { freePort, until } from '../helpers/net.ts';
import { verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

// Real processes: a safety net longer than the polls' own bound (120 s), not a speed limit.
describe.runIf(dialects.includes('postgres'))(
  'several processes on one PostgreSQL',
  { timeout: 180_000 },
  () => {
    let anvil: Anvil;
    let url: string;
    let drop: () => Promise<void>;
    let cwd: string;
    let env: Record<string, string>;
    let usdc: Address;
    let receiver: WebhookReceiver;
    let merchant: { public_id: string };
    let apiKey: string;
    let webhookSecret: string;
    const processes: ChildProcess[] = [];

    /** What each process wrote to stderr (warnings and errors: PAYLINK_LOG_LEVEL is warn), for failures. */
    const logs = new Map<ChildProcess, string>();
    /** The payments' statuses as last read, for failures. */
    let lastRead = '';
    const explain = () =>
      [
        `payments: ${lastRead}`,
        ...processes.map(
          (child) =>
            `--- ${child.spawnargs.at(-1)} ${child.pid} (exit ${child.exitCode ?? child.signalCode}):\n` +
            (logs.get(child) ?? '').slice(-4_000),
        ),
      ].join('\n');

    const serve = async (role: 'api' | 'worker') => {
      const port = await freePort();
      const child = spawn(process.execPath, [await builtPaylinkBin(), 'serve', '--role', role], {
        cwd,
        env: {
          ...env,
          PAYLINK_API_PORT: String(port),
          PAYLINK_CHECKOUT_PORT: String(await freePort()),
          // Each sandbox API process starts the demo merchant's webhook inbox: one port each.
          PAYLINK_SANDBOX_WEBHOOK_PORT: String(await freePort()),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      logs.set(child, '');
      child.stderr?.on('data', (chunk: Buffer) => logs.set(child, logs.get(child) + chunk.toString()));
      processes.push(child);
      if (role === 'api') {
        await until(
          `the ${role} on port ${port} answering`,
          async () => {
            if (child.exitCode !== null)
              throw new Error(`paylink serve exited (${child.exitCode}):\n${explain()}`);
            return fetch(`http://127.0.0.1:${port}/payments/api/convert/?amount=1&currency=USD`).then(
              (r) => r.status,
              () => 0,
            );
          },
          (status) => status === 401,
          { explain, tries: 600, everyMs: 200 },
        );
      }
      return { child, base: `http://127.0.0.1:${port}` };
    };
    const stop = async (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    };

    beforeAll(async () => {
      anvil = await startAnvil({ args: ['--slots-in-an-epoch', '1', '--block-time', '1'] });
      ({ url, drop } = await createEmptyDatabase('postgres'));
      cwd = mkdtempSync(join(tmpdir(), 'paylink-multi-'));
      receiver = await new WebhookReceiver().start();
      const contracts = await deploySandboxContracts(anvil.rpcUrl);
      usdc = contracts.usdc;
      const { factory } = contracts;
      env = {
        PATH: process.env.PATH ?? '',
        PAYLINK_DATABASE_URL: url,
        PAYLINK_NETWORK: 'sandbox',
        PAYLINK_RPC_URL: anvil.rpcUrl,
        // The sandbox's first chain only: its second would be looked for on the port after this anvil's, where
        // another file's chain may be listening, and its jobs would join the locks counted below.
        PAYLINK_CHAINS: '',
        PAYLINK_USDC_ADDRESS: usdc,
        PAYLINK_FACTORY_ADDRESS: factory,
        PAYLINK_POLL_INTERVAL: '300ms',
        PAYLINK_START_BLOCK: '0',
        PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'true',
        PAYLINK_LOG_LEVEL: 'warn',
        // The 200 concurrent clients below all come from 127.0.0.1: lift the per-address limits (requests and
        // open connections) that would otherwise, rightly, treat them as one client.
        PAYLINK_RATE_LIMIT: '100000/s',
        PAYLINK_RATE_LIMIT_BURST: '100000',
        PAYLINK_MAX_CONNECTIONS_PER_CLIENT: 'off',
      };
      expect((await runCli(['migrate'], env)).code).toBe(0);
      const created = await runCli(
        [
          'merchant',
          'create',
          '--name',
          'Busy Shop',
          '--wallet',
          anvil.addresses[1]!,
          '--webhook-url',
          `${receiver.base}/hooks`,
          '--commission',
          '1.25',
          '--json',
        ],
        env,
      );
      ({ merchant, api_key: apiKey, webhook_secret: webhookSecret } = JSON.parse(created.stdout));
    });

    // Each test starts its own processes: those of a test that failed half-way would hold the locks counted by
    // the next and load the machine for nothing.
    afterEach(async () => {
      await Promise.all(processes.map((child) => stop(child, 'SIGKILL')));
      processes.length = 0;
    });

    afterAll(async () => {
      await receiver.stop();
      await anvil.stop();
      await drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    // This file's own nonces: viem's shared `nonceManager` remembers the last nonce per address and chain id for
    // the worker's life, and another file's chain 31337 (the files share a process) left it far above this fresh
    // chain's, so every transfer waited in the pool for nonces that never come (CI timed out so).
    const nonces = createNonceManager({ source: jsonRpc() });
    const customer = () =>
      createWalletClient({
        account: privateKeyToAccount(sandboxPrivateKey(2), { nonceManager: nonces }),
        chain: anvil.chain,
        transport: http(anvil.rpcUrl),
      });

    const SINGLETONS = [
      'paylink:expirer',
      'paylink:chain-watcher:31337',
      'paylink:relayer:31337',
      'paylink:gasless-relayer:31337',
    ];
    /**
     * Who holds each worker singleton of this test's database now: its name → the PostgreSQL backend pid of the
     * holding connection. Other files' services on the same server hold locks of the same names in theirs.
     */
    const singletonHolders = async (): Promise<Map<string, number>> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows: held } = await client.query<{ name: string; pid: number }>(
          `select a.application_name as name, a.pid from pg_locks l join pg_stat_activity a on a.pid = l.pid
           where l.locktype = 'advisory' and l.granted and a.application_name like 'paylink:%'
             and a.datname = current_database()`,
        );
        return new Map(held.map((row) => [row.name, row.pid]));
      } finally {
        await client.end();
      }
    };
    const holdsAll = (holders: Map<string, number>) => SINGLETONS.every((name) => holders.has(name));

    const rows = async (ids: readonly string[]) => {
      const db = openDatabase(url).db;
      try {
        const read = await db
          .selectFrom('payments')
          .selectAll()
          .where('id', 'in', [...ids])
          .execute();
        lastRead = read.map((r) => `${r.status}${r.payout_tx_hash ? '+payout' : ''}`).join(' ');
        return read;
      } finally {
        await db.destroy();
      }
    };

    it('2 API + 1 worker: 200 concurrent creates, 50 payments paid, settled and notified exactly once', async () => {
      const apis = [await serve('api'), await serve('api')];
      await serve('worker');

      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          fetch(`${apis[i % 2]!.base}/payments/api/create/`, {
            method: 'POST',
            headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ amount: `${1 + (i % 7)}.25`, currency: 'USDC', order_id: `order-${i}` }),
          }).then(async (r) => ({
            status: r.status,
            body: (await r.json()) as {
              payment_id: string;
              details: { deposit_address: string; usdc_amount: string };
            },
          })),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(200).fill(201));
      expect(new Set(responses.map((r) => r.body.payment_id)).size).toBe(200);

      const paying = responses.slice(0, 50).map((r) => r.body);
      const wallet = customer();
      const hashes: `0x${string}`[] = [];
      for (const p of paying) {
        const amount = BigInt(Math.round(Number(p.details.usdc_amount) * 100)) * 10_000n; // whole cents in test data
        hashes.push(
          await wallet.writeContract({
            address: usdc,
            abi: testUsdcAbi,
            functionName: 'transfer',
            args: [p.details.deposit_address as Address, amount],
          }),
        );
      }
      for (const hash of hashes) await anvil.publicClient.waitForTransactionReceipt({ hash });
      const ids = paying.map((p) => p.payment_id);

      const settled = await until(
        'the 50 payments paid and paid out',
        () => rows(ids),
        (rs) => rs.every((r) => r.status === 'paid' && r.payout_tx_hash !== null),
        { explain, tries: 600, everyMs: 200 },
      );
      expect(settled.filter((r) => r.status === 'paid')).toHaveLength(50);
      expect(
        settled.every((r) => BigInt(r.settled_base_units) === BigInt(r.amount_received_base_units)),
      ).toBe(true);
      for (const p of paying) {
        const balance = await anvil.publicClient.readContract({
          address: usdc,
          abi: testUsdcAbi,
          functionName: 'balanceOf',
          args: [p.details.deposit_address as Address],
        });
        expect(balance).toBe(0n);
      }
      const merchantShare = settled.reduce((sum, r) => sum + BigInt(r.merchant_share_base_units), 0n);
      const merchantBalance = await anvil.publicClient.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [anvil.addresses[1]!],
      });
      expect(merchantBalance).toBe(merchantShare); // exactly, to the base unit: no flush counted or sent twice

      // Every paid payment notified (at least once; each event verified as a merchant would).
      const delivered = await until(
        'a payment.paid webhook for each',
        async () =>
          receiver.received.map(
            (w) => verifyAsMerchant(webhookSecret, w) as { event: string; payment_id: string },
          ),
        (events) => ids.every((id) => events.some((e) => e.event === 'payment.paid' && e.payment_id === id)),
        { explain, tries: 600, everyMs: 200 },
      );
      expect(new Set(delivered.filter((e) => e.event === 'payment.paid').map((e) => e.payment_id))).toEqual(
        new Set(ids),
      );
      const webhookIds = receiver.received.map((w) => w.headers['webhook-id']);
      expect(new Set(webhookIds).size).toBe(webhookIds.length);
    });

    it('1 API + 2 workers: the worker holding the locks is killed, the other takes over, nothing is lost', async () => {
      const first = await serve('worker');
      // Every singleton is held by `first` before `second` starts: the holders are killed below, never `second`.
      const before = await until('every singleton held', singletonHolders, holdsAll, { explain });
      expect([...before.keys()].sort()).toEqual([...SINGLETONS].sort());
      const second = await serve('worker');
      expect(second.child.exitCode).toBeNull();
      const api = await serve('api');
      const created = [];
      for (let i = 0; i < 10; i += 1) {
        const response = await fetch(`${api.base}/payments/api/create/`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 3, currency: 'USDC' }),
        });
        created.push((await response.json()) as { payment_id: string; details: { deposit_address: string } });
      }
      // Kill every worker started so far except the newest: the lock holders die mid-flight.
      for (const child of processes.filter(
        (c) => c !== second.child && c !== api.child && c.spawnargs.includes('worker'),
      )) {
        await stop(child, 'SIGKILL');
      }
      expect(first.child.signalCode).toBe('SIGKILL');
      // `second`, the only worker left, takes every role over: each lock is now held on a new connection.
      const after = await until(
        'every singleton taken over',
        singletonHolders,
        (holders) => holdsAll(holders) && SINGLETONS.every((name) => holders.get(name) !== before.get(name)),
        { explain, tries: 600, everyMs: 200 },
      );
      for (const name of SINGLETONS) expect(after.get(name)).not.toBe(before.get(name));
      expect(second.child.exitCode).toBeNull();
      const wallet = customer();
      for (const p of created) {
        await anvil.publicClient.waitForTransactionReceipt({
          hash: await wallet.writeContract({
            address: usdc,
            abi: testUsdcAbi,
            functionName: 'transfer',
            args: [p.details.deposit_address as Address, 3_000_000n],
          }),
        });
      }
      const ids = created.map((p) => p.payment_id);
      const done = await until(
        'the 10 payments paid and paid out by the worker left',
        () => rows(ids),
        (rs) => rs.every((r) => r.status === 'paid' && r.payout_tx_hash !== null),
        { explain, tries: 600, everyMs: 200 },
      );
      expect(done.every((r) => r.status === 'paid' && r.settled_base_units === '3000000')).toBe(true);
      expect(merchant.public_id).toMatch(/^mch_/);
    });
  },
);
