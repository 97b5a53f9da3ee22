import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gaslessRepository } from '../../src/adapters/db/gaslessRepository.ts';
import { monitoringRepository } from '../../src/adapters/db/monitoringRepository.ts';
import { createMetrics, type Metrics } from '../../src/adapters/metrics/metrics.ts';
import type { BlockHeader } from '../../src/app/chain/ports.ts';
import type { MonitoringStore } from '../../src/app/operations/ports.ts';
import { ADMIN_TOKEN, type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { freePort } from '../helpers/net.ts';

const CHAIN_ID = 31337;
const BLOCK_TIME_MS = 2_000;

/** A chain node the test steers: its head, its finalized block, whether it answers. */
class FakeNode {
  head = 1_000n;
  finalized = 990n;
  down = false;
  /** The head was mined just now (by the test clock); each block before it 2 s earlier. */
  constructor(private readonly nowMs: () => number) {}

  private check(): void {
    // What a failing RPC client's error can look like: the provider URL and its key in the message.
    if (this.down) throw new Error('fetch failed: https://polygon.example/v2/SECRET_PROVIDER_KEY');
  }
  readonly reader = {
    latestBlockNumber: async () => {
      this.check();
      return this.head;
    },
    finalizedBlockNumber: async () => {
      this.check();
      return this.finalized;
    },
    blockAt: async (n: bigint): Promise<BlockHeader> => {
      this.check();
      return {
        number: n,
        hash: `0x${n.toString(16).padStart(64, '0')}`,
        timestamp: new Date(this.nowMs() - Number(this.head - n) * BLOCK_TIME_MS),
      };
    },
  };
}

describe.each(dialects)('health, readiness and metrics on %s', (dialect) => {
  let h: ApiHarness;
  let node: FakeNode;
  let metrics: Metrics;
  let apiKey: string;

  beforeAll(async () => {
    metrics = createMetrics();
    node = new FakeNode(() => h.clock.now().getTime());
    h = await startApiHarness(dialect, {
      env: { PAYLINK_READY_MAX_LAG_BLOCKS: '50', PAYLINK_READY_MAX_STALL: '60s' },
      overrides: (database) => ({
        monitoring: monitoringRepository(database.handle.db),
        chainProbe: { chainId: CHAIN_ID, reader: node.reader },
        metrics,
      }),
    });
    apiKey = (await h.merchant()).apiKey;
  });
  afterAll(() => h.close());

  const get = (url: string) => h.app.inject({ method: 'GET', url });
  const saveCursor = (nextBlock: bigint, updatedAt = h.clock.now()) =>
    h.stores.ledger.transaction((tx) =>
      tx.saveCursor({
        chainId: CHAIN_ID,
        nextBlock,
        headBlock: node.head,
        finalizedBlock: node.finalized,
        updatedAt,
      }),
    );

  it('/healthz answers without authentication, I/O or a place in the OpenAPI document', async () => {
    const response = await get('/healthz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toStrictEqual({ status: 'ok' });
    const doc = (await get('/openapi.json')).json();
    for (const path of ['/healthz', '/readyz', '/metrics']) expect(doc.paths[path]).toBeUndefined();
  });

  it('/readyz is 503 until the chain watcher has written its cursor', async () => {
    const response = await get('/readyz');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      error: 'Not ready: chain watcher has not started (no cursor)',
      checks: {
        database: { status: 'ok' },
        rpc: { status: 'ok', details: { head_block: '1000' } },
        watcher: { status: 'failing' },
      },
    });
  });

  it('/readyz is 200 when the watcher keeps up, and while it is a little behind but moving', async () => {
    await saveCursor(1_001n);
    const caughtUp = await get('/readyz');
    expect(caughtUp.statusCode).toBe(200);
    expect(caughtUp.json()).toStrictEqual({
      status: 'ready',
      checks: {
        database: { status: 'ok' },
        rpc: { status: 'ok', details: { head_block: '1000' } },
        watcher: { status: 'ok', details: { lag_blocks: 0, seconds_since_advance: 0 } },
        payouts: { status: 'ok', details: { pending: 0, delayed: 0 } },
      },
    });
    // Caught up, it may stay quiet for ever (no new blocks, nothing to write).
    h.clock.advance(3_600_000);
    expect((await get('/readyz')).statusCode).toBe(200);

    node.head = 1_030n;
    await saveCursor(1_001n);
    h.clock.advance(30_000);
    const behind = await get('/readyz');
    expect(behind.statusCode).toBe(200);
    expect(behind.json().checks.watcher.details).toStrictEqual({ lag_blocks: 30, seconds_since_advance: 30 });
  });

  it('/readyz is 503 when the watcher is stalled or too far behind, naming the reason', async () => {
    node.head = 1_030n;
    await saveCursor(1_001n);
    h.clock.advance(61_000);
    const stalled = await get('/readyz');
    expect(stalled.statusCode).toBe(503);
    expect(stalled.json().error).toBe(
      'Not ready: chain watcher stalled: 30 blocks behind and no progress for 61 s',
    );

    node.head = 1_100n;
    await saveCursor(1_001n);
    const behind = await get('/readyz');
    expect(behind.statusCode).toBe(503);
    expect(behind.json().error).toBe('Not ready: chain watcher is 100 blocks behind (at most 50)');
    node.head = 1_000n;
    await saveCursor(1_001n);
  });

  it('/readyz is 503 when the RPC is down, without repeating what the client library said', async () => {
    node.down = true;
    try {
      const response = await get('/readyz');
      expect(response.statusCode).toBe(503);
      expect(response.json().checks.rpc).toStrictEqual({
        status: 'failing',
        reason: 'RPC unreachable: Error',
      });
      expect(response.body).not.toContain('SECRET_PROVIDER_KEY');
      // The watcher is judged against its own last known head meanwhile.
      expect(response.json().checks.watcher.status).toBe('ok');
    } finally {
      node.down = false;
    }
    expect((await get('/readyz')).statusCode).toBe(200);
  });

  it('/metrics exposes latency by route, payments by status, watcher lag, finality age, webhooks and gas', async () => {
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: { amount: 5, currency: 'USD' },
    });
    expect(created.statusCode).toBe(201);
    const payment = created.json();
    await h.app.inject({
      method: 'GET',
      url: `/payments/api/status/${payment.payment_id}/`,
      headers: { 'x-api-key': apiKey },
    });
    await h.app.inject({
      method: 'GET',
      url: '/payments/api/status/nope/',
      headers: { 'x-api-key': apiKey },
    });
    await get('/no/such/path');
    const merchantId = (await h.stores.payments.findById(payment.payment_id))!.merchantId;
    await h.database.handle.db
      .insertInto('events')
      .values({
        id: 'evt_metrics_test',
        payment_id: payment.payment_id,
        merchant_id: merchantId,
        sequence: 1,
        type: 'payment.paid',
        payload: '{}',
        created_at: new Date(h.clock.now().getTime() - 90_000).toISOString(),
      })
      .execute();
    node.head = 1_010n;
    await saveCursor(1_001n);
    // Read by the settler in a worker process, reported by every API process.
    await h.stores.settlements.recordRelayerBalance({
      chainId: 31337,
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      balanceWei: 1_500_000_000_000_000_000n,
      lowBalanceWei: 1_000_000_000_000_000_000n,
      observedAt: new Date(h.clock.now().getTime() - 30_000),
    });

    // What the gasless relayer paid: one transfer mined an hour and a half ago, one 10 minutes ago, one waiting.
    const gasless = gaslessRepository(h.database.handle);
    const relayed = (
      id: string,
      nonce: string,
      status: 'pending' | 'mined',
      feeWei: bigint | null,
      agoMs: number,
    ) =>
      gasless.insert({
        id,
        paymentId: payment.payment_id,
        chainId: 31337,
        tokenAddress: TEST_CHAIN.tokenAddress.toLowerCase(),
        from: '0x00000000000000000000000000000000000000c1',
        to: payment.details.deposit_address.toLowerCase(),
        valueBaseUnits: 1n,
        validAfter: 0n,
        validBefore: 1n,
        nonce: `0x${nonce.repeat(64)}`,
        signature: '0x',
        clientAddress: '203.0.113.9',
        status,
        txHash: null,
        rawTx: null,
        relayerNonce: null,
        gasUsed: null,
        feeWei,
        failureReason: null,
        createdAt: new Date(h.clock.now().getTime() - agoMs),
        finishedAt: status === 'mined' ? new Date(h.clock.now().getTime() - agoMs) : null,
      });
    await relayed('gas_old', '1', 'mined', 250_000_000_000_000_000n, 90 * 60_000);
    await relayed('gas_new', '2', 'mined', 3_000_000_000_000_000n, 10 * 60_000);
    expect(await relayed('gas_wait', '3', 'pending', null, 0)).toBe('inserted');

    const response = await get('/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = response.body;
    expect(text).toMatch(
      /paylink_http_request_duration_seconds_count\{method="POST",route="\/payments\/api\/create\/",status_code="201"\} 1/,
    );
    // Route patterns, not raw URLs: the id never becomes a label value.
    expect(text).toContain('route="/payments/api/status/:payment_id/",status_code="200"');
    expect(text).toContain('route="/payments/api/status/:payment_id/",status_code="404"');
    expect(text).not.toContain(payment.payment_id);
    expect(text).toContain('route="unmatched",status_code="404"');
    expect(text).toContain('paylink_payments{status="pending"} 1');
    expect(text).toContain('paylink_webhook_events{delivery_status="pending"} 1');
    expect(text).toContain('paylink_webhook_queue_depth 1');
    expect(text).toContain('paylink_webhook_oldest_owed_age_seconds 90');
    expect(text).toContain('paylink_watcher_lag_blocks{chain_id="31337"} 10');
    expect(text).toContain('paylink_watcher_lag_seconds{chain_id="31337"} 20'); // 10 blocks of 2 s
    expect(text).toContain('paylink_finalized_head_age_seconds{chain_id="31337"} 40'); // head 1010 at the clock, finalized 990
    expect(text).toContain('paylink_relayer_balance_pol{chain_id="31337"} 1.5');
    expect(text).toContain('paylink_relayer_low_balance_pol{chain_id="31337"} 1');
    expect(text).toContain('paylink_relayer_balance_age_seconds{chain_id="31337"} 30');
    expect(text).toContain('paylink_gasless_authorizations{chain_id="31337",status="mined"} 2');
    expect(text).toContain('paylink_gasless_authorizations{chain_id="31337",status="pending"} 1');
    expect(text).toContain('paylink_gasless_fees_pol{chain_id="31337",window="total"} 0.253');
    expect(text).toContain('paylink_gasless_fees_pol{chain_id="31337",window="1h"} 0.003');
    expect(text).toContain('paylink_payouts{state="pending"} 0');
    expect(text).toContain('paylink_payouts{state="delayed"} 0');
    expect(text).toContain('paylink_payout_oldest_delayed_age_seconds 0');
    expect(text).toContain('paylink_dependency_up{dependency="database"} 1');
    expect(text).toContain('paylink_dependency_up{dependency="rpc",chain_id="31337"} 1');
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('/metrics and /readyz say when payouts are delayed and why, without making the API unready', async () => {
    const created = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: { amount: 5, currency: 'USD' },
    });
    const paymentId = created.json().payment_id as string;
    const ago = (ms: number) => new Date(h.clock.now().getTime() - ms).toISOString();
    await h.database.handle.db
      .updateTable('payments')
      .set((eb) => ({
        status: 'paid',
        amount_received_base_units: eb.ref('usdc_amount_base_units'),
        payout_blocked_since: ago(11 * 60_000),
        payout_blocked_reason: 'Blacklistable: account is blacklisted',
        commission_blocked_since: ago(60_000),
        commission_blocked_reason: 'Pausable: paused',
      }))
      .where('id', '=', paymentId)
      .execute();
    await saveCursor(1_010n);

    const text = (await get('/metrics')).body;
    expect(text).toContain('paylink_payouts{state="delayed"} 1');
    expect(text).toContain('paylink_payouts{state="pending"} 0');
    expect(text).toContain('paylink_payout_oldest_delayed_age_seconds 660');
    expect(text).toContain(
      'paylink_payouts_failing{share="merchant",reason="Blacklistable: account is blacklisted"} 1',
    );
    expect(text).toContain('paylink_payouts_failing{share="commission",reason="Pausable: paused"} 1');

    const ready = await get('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks.payouts).toEqual({
      status: 'failing',
      reason: `1 payout(s) delayed, the oldest failing since ${ago(11 * 60_000)}: Blacklistable: account is blacklisted`,
    });
  });

  it('/metrics reports chain gauges as unknown (NaN) while the node is down, and says so', async () => {
    await saveCursor(1_001n);
    node.down = true;
    try {
      const text = (await get('/metrics')).body;
      expect(text).toContain('paylink_dependency_up{dependency="rpc",chain_id="31337"} 0');
      // prom-client writes "Nan"; Prometheus parses NaN in any case.
      expect(text).toMatch(/^paylink_finalized_head_age_seconds\{chain_id="31337"\} nan$/im);
      expect(text).toMatch(/^paylink_watcher_lag_blocks\{chain_id="31337"\} \d/m); // from the cursor's own head
    } finally {
      node.down = false;
    }
  });

  it('logs a request its client aborted mid-body at info, without a stack: the client left, nothing failed', async () => {
    const port = await freePort();
    await h.app.listen({ host: '127.0.0.1', port });
    const before = h.logs().length;
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers in, the body begun: the server has the request when it says so, then the client goes.
    const received = new Promise((resolve) => h.app.server.once('request', resolve));
    socket.write(
      `POST /payments/api/create/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${apiKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"amount": "1',
    );
    await received;
    socket.destroy();
    const lines = () =>
      h
        .logs()
        .slice(before)
        .split('\n')
        .filter((line) => line.includes('"reqId"'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message?: string } });
    // The line about the cut-off body, whatever it says and at whatever level: then what it says is checked.
    const isAboutIt = (l: ReturnType<typeof lines>[number]) => /aborted/.test(`${l.msg} ${l.err?.message}`);
    await vi.waitFor(() => expect(lines().some(isAboutIt)).toBe(true), { timeout: 30_000 });
    const aborted = lines().find(isAboutIt)!;
    expect(aborted.msg).toBe('client aborted the request before its body was complete');
    expect(aborted.level).toBe(30); // info
    expect(aborted.err).toBeUndefined();
    expect(h.logs().slice(before)).not.toContain('"stack"');
    expect(lines().filter((l) => l.level >= 40)).toEqual([]);
  });

  it('never writes an API key into the request logs', async () => {
    await h.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': apiKey } });
    await h.app.inject({
      method: 'GET',
      url: '/payments/api/payments/',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(h.logs()).not.toContain(apiKey);
  });

  it('never logs a secret sent in a query string, though the request is refused; other parameters stay readable', async () => {
    const refused = await h.app.inject({
      method: 'GET',
      url: `/payments/api/convert/?amount=10&currency=EUR&api_key=${apiKey}`,
    });
    expect(refused.statusCode).toBe(401);
    const admin = await h.app.inject({ method: 'GET', url: `/admin/api/merchants/?token=${ADMIN_TOKEN}` });
    expect(admin.statusCode).toBe(401);
    await h.app.inject({ method: 'GET', url: `/payments/api/status/x/?%61pi_key=${apiKey}&k=${apiKey}` });
    const logs = h.logs();
    expect(logs).not.toContain(apiKey);
    expect(logs).not.toContain(ADMIN_TOKEN);
    expect(logs).toContain('/payments/api/convert/?amount=10&currency=EUR&api_key=[redacted]');
    expect(logs).toContain('/admin/api/merchants/?token=[redacted]');
    expect(logs).toContain('?%61pi_key=[redacted]&k=[redacted]');
  });
});

describe.each(dialects)('a test chain beside the live one on %s', (dialect) => {
  const TEST_CHAIN_ID = 80002;
  let h: ApiHarness;
  let live: FakeNode;
  let test: FakeNode;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: (database) => {
        live = new FakeNode(() => h.clock.now().getTime());
        test = new FakeNode(() => h.clock.now().getTime());
        return {
          monitoring: monitoringRepository(database.handle.db),
          chainProbe: { chainId: CHAIN_ID, reader: live.reader },
          testChainProbe: { chainId: TEST_CHAIN_ID, reader: test.reader },
          metrics: createMetrics({ defaultMetrics: false }),
        };
      },
    });
    for (const [chainId, node] of [
      [CHAIN_ID, live],
      [TEST_CHAIN_ID, test],
    ] as const) {
      await h.stores.ledger.transaction((tx) =>
        tx.saveCursor({
          chainId,
          nextBlock: node.head + 1n,
          headBlock: node.head,
          finalizedBlock: node.finalized,
          updatedAt: h.clock.now(),
        }),
      );
    }
  });
  afterAll(() => h.close());

  const get = (url: string) => h.app.inject({ method: 'GET', url });

  it('/readyz reports the test chain beside the live one', async () => {
    const response = await get('/readyz');
    expect(response.statusCode).toBe(200);
    expect(response.json().checks).toMatchObject({
      rpc: { status: 'ok' },
      watcher: { status: 'ok' },
      test_rpc: { status: 'ok', details: { head_block: '1000' } },
      test_watcher: { status: 'ok', details: { lag_blocks: 0 } },
    });
  });

  it('a test network down is reported, yet the API stays ready; the live one down makes it unready', async () => {
    test.down = true;
    test.head = 1_500n;
    try {
      const response = await get('/readyz');
      expect(response.statusCode).toBe(200);
      expect(response.json().checks.test_rpc).toStrictEqual({
        status: 'failing',
        reason: 'RPC unreachable: Error',
      });
      const metrics = (await get('/metrics')).body;
      expect(metrics).toContain(`paylink_dependency_up{dependency="rpc",chain_id="${TEST_CHAIN_ID}"} 0`);
      expect(metrics).toContain(`paylink_dependency_up{dependency="rpc",chain_id="${CHAIN_ID}"} 1`);
      expect(metrics).toContain(`paylink_watcher_lag_blocks{chain_id="${CHAIN_ID}"} 0`);
      expect(metrics).toMatch(
        new RegExp(`^paylink_finalized_head_age_seconds\\{chain_id="${TEST_CHAIN_ID}"\\} nan$`, 'im'),
      );

      test.down = false;
      const lagging = await get('/readyz');
      expect(lagging.statusCode).toBe(200);
      expect(lagging.json().checks.test_watcher).toMatchObject({ status: 'failing' });
      expect((await get('/metrics')).body).toContain(
        `paylink_watcher_lag_blocks{chain_id="${TEST_CHAIN_ID}"} 500`,
      );

      live.down = true;
      const unready = await get('/readyz');
      expect(unready.statusCode).toBe(503);
      expect(unready.json().error).toBe('Not ready: RPC unreachable: Error');
    } finally {
      test.down = false;
      test.head = 1_000n;
      live.down = false;
    }
  });
});

describe.each(dialects)('readiness without a chain or a working database on %s', (dialect) => {
  it('skips the chain checks when no chain is wired, and fails on the database', async () => {
    let databaseDown = false;
    const h = await startApiHarness(dialect, {
      overrides: (database) => {
        const real = monitoringRepository(database.handle.db);
        const flaky: MonitoringStore = {
          ...real,
          ping: async () => {
            if (databaseDown)
              throw Object.assign(new Error('password authentication failed for user "paylink"'), {
                code: 'ECONNREFUSED',
              });
          },
        };
        return { monitoring: flaky };
      },
    });
    try {
      const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().checks.rpc).toStrictEqual({
        status: 'skipped',
        reason: 'no chain configured for this process',
      });
      databaseDown = true;
      const down = await h.app.inject({ method: 'GET', url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.json().error).toBe('Not ready: database unreachable: Error ECONNREFUSED');
      expect(down.body).not.toContain('password');
      expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await h.close();
    }
  });
});
