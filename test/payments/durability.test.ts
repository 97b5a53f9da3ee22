/**
 * A payment answered 201 is never lost: its deposit address may already be in the customer's wallet, and only
 * the stored payment can ever flush what is sent there. On SQLite every connection commits with
 * synchronous = FULL (an OS crash or power cut loses nothing committed); and a server killed with SIGKILL right
 * after answering keeps every payment it answered.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedFactoryV3 } from '../../src/adapters/chain/routeTable.ts';
import { openDatabase } from '../../src/adapters/db/database.ts';
import { chainsOfMode, loadConfig } from '../../src/config/index.ts';
import { builtPaylinkBin } from '../helpers/builtCli.ts';
import { runCli } from '../helpers/cli.ts';
import { eventually, freePort } from '../helpers/net.ts';

const SYNCHRONOUS_FULL = 2;
const SYNCHRONOUS_EXTRA = 3;

describe('durability of the SQLite store', { timeout: 180_000 }, () => {
  let dir: string;
  let url: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'paylink-durable-'));
    url = `sqlite:${join(dir, 'paylink.db')}`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('commits with synchronous = FULL (or EXTRA) on every connection it opens', async () => {
    const handles = [openDatabase(url), openDatabase(url)];
    try {
      for (const { db } of handles) {
        const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
        expect([SYNCHRONOUS_FULL, SYNCHRONOUS_EXTRA]).toContain(Number(rows[0]!.synchronous));
        const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
        expect(journal.rows[0]!.journal_mode).toBe('wal');
      }
    } finally {
      for (const handle of handles) await handle.close();
    }
  });

  it('keeps every payment answered 201 by a server killed with SIGKILL right after', async () => {
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      PAYLINK_DATABASE_URL: url,
      PAYLINK_NETWORK: 'polygon',
      // The API role needs no chain to sell a link: addresses are computed off-chain, the token is not reachable.
      PAYLINK_RPC_URL: 'http://127.0.0.1:9',
      PAYLINK_TREASURY_ADDRESS: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
      PAYLINK_RATES: 'static:EUR=1.08',
      PAYLINK_RATE_LIMIT: 'off',
      PAYLINK_API_PORT: String(port),
      PAYLINK_CHECKOUT_PORT: String(await freePort()),
      PAYLINK_LOG_LEVEL: 'warn',
    };
    // The factory `paylink contracts deploy` deploys for this configuration (version 3, decision 0038): known
    // from the configuration alone, so the API starts without the chain. Any other factory's version would be
    // read from the chain at start, and an unreachable one refuses the start.
    const { factory } = await expectedFactoryV3(chainsOfMode(loadConfig(env).chains, 'live'));
    Object.assign(env, { PAYLINK_FACTORY_ADDRESS: factory });
    const created = await runCli(
      [
        'merchant',
        'create',
        '--name',
        'Durable Shop',
        '--wallet',
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        '--webhook-url',
        'https://shop.example.test/hooks',
        '--json',
      ],
      env,
    );
    // The token cannot be asked here: the wallet is not checked (said on stderr), the merchant is created.
    expect(created.code).toBe(0);
    const apiKey = JSON.parse(created.stdout).api_key as string;

    const server: ChildProcess = spawn(
      process.execPath,
      [await builtPaylinkBin(), 'serve', '--role', 'api'],
      {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    server.stderr?.resume();
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      await eventually(
        () =>
          fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 200,
      );
      const answered = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          fetch(`http://127.0.0.1:${port}/payments/api/create/`, {
            method: 'POST',
            headers: {
              'x-api-key': apiKey,
              'content-type': 'application/json',
              ...(i % 2 === 0 ? { 'idempotency-key': `order-${i}` } : {}),
            },
            body: JSON.stringify({ amount: `${i + 1}.25`, currency: 'EUR', order_id: `order-${i}` }),
          }).then(async (response) => ({
            status: response.status,
            body: (await response.json()) as { payment_id: string; details: { deposit_address: string } },
          })),
        ),
      );
      // Killed the moment the last answer is in: nothing gets the chance to flush anything later.
      server.kill('SIGKILL');
      await exited;
      expect(answered.map((a) => a.status)).toEqual(Array(40).fill(201));

      const reopened = openDatabase(url);
      try {
        const rows = await reopened.db
          .selectFrom('payments')
          .select(['id', 'order_id', 'amount_minor_units', 'deposit_address'])
          .execute();
        const stored = new Map(rows.map((r) => [r.id, r]));
        for (const [i, { body }] of answered.entries()) {
          expect(stored.get(body.payment_id)).toMatchObject({
            order_id: `order-${i}`,
            amount_minor_units: String((i + 1) * 100 + 25),
            deposit_address: body.details.deposit_address.toLowerCase(),
          });
        }
        const keys = await reopened.db.selectFrom('idempotency_keys').select(['key', 'payment_id']).execute();
        expect(keys.filter((k) => k.payment_id !== null)).toHaveLength(20);
      } finally {
        await reopened.close();
      }
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    }
  });
});
