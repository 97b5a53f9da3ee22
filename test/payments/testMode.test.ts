/**
 * Test mode: sk_test_ keys and sk_live_ keys of one merchant, in one deployment, never see each other's
 * payments — status, listing, webhook log and idempotency are all scoped by (merchant, mode) — and each mode's
 * payments are on its own chain. Deposit planning is off-chain, so two fake chains with different ids suffice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createNonceManager, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { jsonRpc } from 'viem/nonce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { openDatabase } from '../../src/adapters/db/database.ts';
import { rotateApiKey } from '../../src/app/merchants/merchantAdmin.ts';
import { newEventId } from '../../src/domain/credentials.ts';
import { deploySandboxContracts, sandboxAccount, sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { builtPaylinkBin } from '../helpers/builtCli.ts';
import { runCli } from '../helpers/cli.ts';
import { createEmptyDatabase, dialects } from '../helpers/database.ts';
import { eventually, freePort, until } from '../helpers/net.ts';
import { verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

/** The test-mode chain: another id, other contracts (as Amoy would have). */
const AMOY_CHAIN = {
  chainId: 80002,
  tokenAddress: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
  factoryAddress: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  treasuryAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
} as const;

const NOT_FOUND = { error: 'Payment not found', code: 'NOT_FOUND' };

describe.each(dialects)('test mode on %s', (dialect) => {
  let h: ApiHarness;
  let merchantId: string;
  let liveKey: string;
  let testKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect, {
      overrides: { deposits: { live: depositPlanner(TEST_CHAIN), test: depositPlanner(AMOY_CHAIN) } },
    });
    const merchant = await h.merchant();
    merchantId = merchant.id;
    liveKey = merchant.apiKey;
    testKey = (
      await rotateApiKey(
        { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false },
        merchantId,
        0,
        'test',
      )
    ).apiKey;
  });
  afterAll(() => h.close());

  const create = (
    key: string,
    body: Record<string, unknown> = { amount: '10.00', currency: 'USD' },
    headers = {},
  ) =>
    h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      payload: body,
    });
  const get = (url: string, key: string) =>
    h.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const created = async (key: string, body?: Record<string, unknown>) => {
    const response = await create(key, body);
    expect(response.statusCode).toBe(201);
    return response.json() as { payment_id: string; details: { chain_id: number; deposit_address: string } };
  };
  /** One event in the outbox for the payment, as a status change would write it. */
  const addEvent = async (paymentId: string) => {
    const id = newEventId();
    await h.stores.ledger.transaction((tx) =>
      tx.insertEvent({
        id,
        paymentId,
        merchantId,
        type: 'payment.processing',
        payload: JSON.stringify({ id, payment_id: paymentId }),
        createdAt: h.clock.now(),
      }),
    );
    return id;
  };

  it('issues keys of each mode with their prefix', () => {
    expect(liveKey).toMatch(/^sk_live_/);
    expect(testKey).toMatch(/^sk_test_/);
  });

  it('creates each mode’s payment on that mode’s chain', async () => {
    const live = await created(liveKey);
    const test = await created(testKey);
    expect(live.details.chain_id).toBe(TEST_CHAIN.chainId);
    expect(test.details.chain_id).toBe(AMOY_CHAIN.chainId);
    expect(test.details.deposit_address).not.toBe(live.details.deposit_address);
    const testRow = await h.stores.payments.findById(test.payment_id);
    expect(testRow).toMatchObject({
      mode: 'test',
      deposit: { chainId: 80002, factoryAddress: AMOY_CHAIN.factoryAddress },
    });
    expect((await h.stores.payments.findById(live.payment_id))?.mode).toBe('live');
  });

  it('a test key never sees a live payment, and a live key never sees a test payment', async () => {
    const live = await created(liveKey, { amount: '11.00', currency: 'USD', order_id: 'same-order' });
    const test = await created(testKey, { amount: '12.00', currency: 'USD', order_id: 'same-order' });

    // Status: the other mode's payment is the same 404 as a missing one.
    const cross1 = await get(`/payments/api/status/${live.payment_id}/`, testKey);
    const cross2 = await get(`/payments/api/status/${test.payment_id}/`, liveKey);
    expect([cross1.statusCode, cross1.json()]).toStrictEqual([404, NOT_FOUND]);
    expect([cross2.statusCode, cross2.json()]).toStrictEqual([404, NOT_FOUND]);
    expect((await get(`/payments/api/status/${live.payment_id}/`, liveKey)).statusCode).toBe(200);
    expect((await get(`/payments/api/status/${test.payment_id}/`, testKey)).statusCode).toBe(200);

    // Listing: each key lists its own mode only.
    const ids = async (key: string, query = '') =>
      (await get(`/payments/api/payments/${query}`, key))
        .json()
        .payments.map((p: { payment_id: string }) => p.payment_id);
    const liveIds = await ids(liveKey, '?limit=100');
    const testIds = await ids(testKey, '?limit=100');
    expect(liveIds).toContain(live.payment_id);
    expect(liveIds).not.toContain(test.payment_id);
    expect(testIds).toContain(test.payment_id);
    expect(testIds).not.toContain(live.payment_id);
    expect(await ids(liveKey, '?order_id=same-order')).toStrictEqual([live.payment_id]);
    expect(await ids(testKey, '?order_id=same-order')).toStrictEqual([test.payment_id]);

    // Webhook log: events of the other mode's payments are not listed, and filtering by one is a 404.
    const liveEvent = await addEvent(live.payment_id);
    const testEvent = await addEvent(test.payment_id);
    const events = async (key: string) =>
      (await get('/payments/api/webhooks/', key)).json().events.map((e: { id: string }) => e.id);
    expect(await events(liveKey)).toContain(liveEvent);
    expect(await events(liveKey)).not.toContain(testEvent);
    expect(await events(testKey)).toStrictEqual([testEvent]);
    const crossEvents = await get(`/payments/api/webhooks/?payment_id=${live.payment_id}`, testKey);
    expect([crossEvents.statusCode, crossEvents.json()]).toStrictEqual([404, NOT_FOUND]);
    const ownEvents = await get(`/payments/api/webhooks/?payment_id=${test.payment_id}`, testKey);
    expect(ownEvents.json().events.map((e: { id: string }) => e.id)).toStrictEqual([testEvent]);
  });

  it('a listing cursor of one mode is refused in the other', async () => {
    await created(liveKey);
    await created(liveKey);
    const page = (await get('/payments/api/payments/?limit=1', liveKey)).json();
    expect(page.next_cursor).toEqual(expect.any(String));
    const replayed = await get(`/payments/api/payments/?limit=1&cursor=${page.next_cursor}`, testKey);
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json().code).toBe('VALIDATION_ERROR');
  });

  it('the same Idempotency-Key in test and live mode are independent', async () => {
    const key = `order-${dialect}-1`;
    const body = { amount: '7.00', currency: 'USD' };
    const live = await create(liveKey, body, { 'idempotency-key': key });
    const test = await create(testKey, body, { 'idempotency-key': key });
    expect([live.statusCode, test.statusCode]).toStrictEqual([201, 201]);
    expect(test.headers['idempotent-replayed']).toBeUndefined();
    expect(test.json().payment_id).not.toBe(live.json().payment_id);
    expect(test.json().details.chain_id).toBe(80002);

    // Each replays its own payment; a different body is a mismatch only within the same mode.
    const liveAgain = await create(liveKey, body, { 'idempotency-key': key });
    const testAgain = await create(testKey, body, { 'idempotency-key': key });
    expect(liveAgain.headers['idempotent-replayed']).toBe('true');
    expect(testAgain.headers['idempotent-replayed']).toBe('true');
    expect(liveAgain.json().payment_id).toBe(live.json().payment_id);
    expect(testAgain.json().payment_id).toBe(test.json().payment_id);
    const reused = await create(testKey, { amount: '8.00', currency: 'USD' }, { 'idempotency-key': key });
    expect([reused.statusCode, reused.json().code]).toStrictEqual([422, 'IDEMPOTENCY_KEY_REUSED']);

    // A key first used in test mode is still fresh in live mode.
    const other = `order-${dialect}-2`;
    expect((await create(testKey, body, { 'idempotency-key': other })).statusCode).toBe(201);
    const fresh = await create(liveKey, { amount: '9.00', currency: 'USD' }, { 'idempotency-key': other });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
  });

  it('rotating the live key leaves the test key working, and the other way round', async () => {
    const rotate = (mode?: string) =>
      h.admin('POST', `/admin/api/merchants/${merchantId}/rotate-key/`, mode === undefined ? {} : { mode });
    const status = (key: string) => get('/payments/api/payments/?limit=1', key).then((r) => r.statusCode);

    const liveRotation = await rotate();
    expect(liveRotation.statusCode).toBe(200);
    const newLive: string = liveRotation.json().api_key;
    expect(newLive).toMatch(/^sk_live_/);
    h.clock.advance(1);
    expect(await status(liveKey)).toBe(401);
    expect(await status(newLive)).toBe(200);
    expect(await status(testKey)).toBe(200);

    const testRotation = await rotate('test');
    expect(testRotation.statusCode).toBe(200);
    const newTest: string = testRotation.json().api_key;
    expect(newTest).toMatch(/^sk_test_/);
    h.clock.advance(1);
    expect(await status(testKey)).toBe(401);
    expect(await status(newTest)).toBe(200);
    expect(await status(newLive)).toBe(200);
    liveKey = newLive;
    testKey = newTest;

    const bad = await rotate('sandbox');
    expect(bad.statusCode).toBe(400);
  });
});

describe.each(dialects)('test mode without a test chain on %s', (dialect) => {
  let h: ApiHarness;
  let liveKey: string;
  let testKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect); // live deposit planner only
    const merchant = await h.merchant();
    liveKey = merchant.apiKey;
    testKey = (
      await rotateApiKey(
        { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: false },
        merchant.id,
        0,
        'test',
      )
    ).apiKey;
  });
  afterAll(() => h.close());

  const create = (key: string, headers: Record<string, string> = {}) =>
    h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      payload: { amount: '10.00', currency: 'USD' },
    });

  it('refuses a test key’s payment with 409 TEST_MODE_UNAVAILABLE, and keeps no idempotency key', async () => {
    for (const headers of [{}, { 'idempotency-key': 'k-1' }]) {
      const response = await create(testKey, headers);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({
        code: 'TEST_MODE_UNAVAILABLE',
        error: expect.stringMatching(/test/i),
      });
    }
    expect((await create(liveKey, { 'idempotency-key': 'k-1' })).statusCode).toBe(201);
    // Reads still work for the test key: there is simply nothing to see.
    const list = await h.app.inject({
      method: 'GET',
      url: '/payments/api/payments/',
      headers: { 'x-api-key': testKey },
    });
    expect([list.statusCode, list.json().payments]).toStrictEqual([200, []]);
  });
});

/**
 * For real: one `paylink serve` (role all) on PostgreSQL, the live chain on one anvil (sandbox, 31337) and the
 * test chain on another standing in for Amoy (80002), each with its own contracts, watcher and settler.
 */
// Real processes and two chains: a safety net longer than the polls' own bound (120 s), not a speed limit.
describe.runIf(dialects.includes('postgres'))(
  'test mode in a real process, two chains',
  { timeout: 180_000 },
  () => {
    let live: Anvil;
    let amoy: Anvil;
    let drop: () => Promise<void>;
    let cwd: string;
    let env: Record<string, string>;
    let liveUsdc: Address;
    let amoyUsdc: Address;
    let receiver: WebhookReceiver;
    let apiKey: string;
    let testApiKey: string;
    let webhookSecret: string;
    let merchantId: string;
    let server: ChildProcess | undefined;
    let api: string;
    let checkout: string;
    let dbUrl: string;
    /** What the process wrote to stderr (warnings and errors: PAYLINK_LOG_LEVEL is warn), for a failure to show. */
    let serverLog = '';
    /** A payment's status as last read, for a failure to show. */
    let lastRead = '';
    const explain = () =>
      `last read: ${lastRead}\npaylink serve (exit ${server?.exitCode ?? server?.signalCode ?? 'none'}):\n${serverLog.slice(-6_000)}`;

    beforeAll(async () => {
      const chainArgs = ['--slots-in-an-epoch', '1', '--block-time', '1'];
      [live, amoy] = await Promise.all([
        startAnvil({ args: chainArgs }),
        startAnvil({ args: chainArgs, chainId: 80002 }),
      ]);
      ({ url: dbUrl, drop } = await createEmptyDatabase('postgres'));
      cwd = mkdtempSync(join(tmpdir(), 'paylink-testmode-'));
      receiver = await new WebhookReceiver().start();
      const [liveContracts, amoyContracts] = await Promise.all([
        deploySandboxContracts(live.rpcUrl),
        deploySandboxContracts(amoy.rpcUrl, 80002),
      ]);
      liveUsdc = liveContracts.usdc;
      amoyUsdc = amoyContracts.usdc;
      const apiPort = await freePort();
      const checkoutPort = await freePort();
      api = `http://127.0.0.1:${apiPort}`;
      checkout = `http://127.0.0.1:${checkoutPort}`;
      env = {
        PATH: process.env.PATH ?? '',
        PAYLINK_DATABASE_URL: dbUrl,
        PAYLINK_NETWORK: 'sandbox',
        PAYLINK_RPC_URL: live.rpcUrl,
        // The live sandbox's first chain only: its second would be looked for on the port after this anvil's,
        // where the test chain or another file's chain may be listening.
        PAYLINK_CHAINS: '',
        PAYLINK_USDC_ADDRESS: liveUsdc,
        PAYLINK_FACTORY_ADDRESS: liveContracts.factory,
        PAYLINK_START_BLOCK: '0',
        PAYLINK_TEST_NETWORK: 'amoy',
        PAYLINK_TEST_RPC_URL: amoy.rpcUrl,
        PAYLINK_TEST_USDC_ADDRESS: amoyUsdc,
        PAYLINK_TEST_FACTORY_ADDRESS: amoyContracts.factory,
        PAYLINK_TEST_TREASURY_ADDRESS: sandboxAccount(9).address,
        PAYLINK_TEST_RELAYER_KEY: sandboxPrivateKey(0),
        PAYLINK_TEST_START_BLOCK: '0',
        PAYLINK_POLL_INTERVAL: '300ms',
        PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'true',
        PAYLINK_LOG_LEVEL: 'warn',
        PAYLINK_API_PORT: String(apiPort),
        PAYLINK_CHECKOUT_PORT: String(checkoutPort),
        PAYLINK_SANDBOX_WEBHOOK_PORT: String(await freePort()),
      };
      expect((await runCli(['migrate'], env)).code).toBe(0);
      const created = await runCli(
        [
          'merchant',
          'create',
          '--name',
          'Two Chains Shop',
          '--wallet',
          live.addresses[1]!,
          '--webhook-url',
          `${receiver.base}/hooks`,
          '--commission',
          '1',
          '--test-key',
          '--json',
        ],
        env,
      );
      const issued = JSON.parse(created.stdout);
      ({ api_key: apiKey, test_api_key: testApiKey, webhook_secret: webhookSecret } = issued);
      merchantId = issued.merchant.public_id;
      server = spawn(process.execPath, [await builtPaylinkBin(), 'serve', '--role', 'all'], {
        cwd,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      server.stderr?.on('data', (chunk: Buffer) => {
        serverLog += chunk.toString();
      });
      await eventually(
        () =>
          fetch(`${api}/payments/api/convert/?amount=1&currency=USD`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 401,
      );
    });

    afterAll(async () => {
      if (server && server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server?.once('exit', resolve));
        server.kill('SIGKILL');
        await exited;
      }
      await receiver?.stop();
      await Promise.all([live?.stop(), amoy?.stop()]);
      await drop?.();
      if (cwd) rmSync(cwd, { recursive: true, force: true });
    });

    const createPayment = async (key: string, amount: string) => {
      const response = await fetch(`${api}/payments/api/create/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ amount, currency: 'USDC' }),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as {
        payment_id: string;
        details: { chain_id: number; deposit_address: Address };
      };
    };
    // This file's own nonces, not viem's shared `nonceManager`: that one remembers the last nonce per address and
    // chain id for the worker's life, and another file's chain 31337 (the files share a process) left it far above
    // this fresh chain's, so the transfer waited in the pool for nonces that never come (CI timed out so).
    const nonces = createNonceManager({ source: jsonRpc() });
    const pay = async (anvil: Anvil, usdc: Address, to: Address, amount: bigint) => {
      const wallet = createWalletClient({
        account: privateKeyToAccount(sandboxPrivateKey(2), { nonceManager: nonces }),
        chain: anvil.chain,
        transport: http(anvil.rpcUrl),
      });
      const hash = await wallet.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: [to, amount],
      });
      await anvil.publicClient.waitForTransactionReceipt({ hash });
    };
    const row = async (id: string) => {
      const db = openDatabase(dbUrl).db;
      try {
        const read = await db
          .selectFrom('payments')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        lastRead = `${read.mode} ${read.status} received ${read.amount_received_base_units} payout ${read.payout_tx_hash}`;
        return read;
      } finally {
        await db.destroy();
      }
    };
    const balance = (anvil: Anvil, usdc: Address, of: Address) =>
      anvil.publicClient.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [of],
      });

    it('a test payment is paid and settled on the test chain; the live payment is untouched until paid on its own', async () => {
      const livePayment = await createPayment(apiKey, '4.00');
      const testPayment = await createPayment(testApiKey, '3.00');
      expect(livePayment.details.chain_id).toBe(31337);
      expect(testPayment.details.chain_id).toBe(80002);

      // A transfer on the test chain to the live payment's address never counts: it is the wrong chain. It is
      // sent first, so once the test payment (a later block) is paid, the test watcher has scanned past it.
      await pay(amoy, amoyUsdc, livePayment.details.deposit_address, 4_000_000n);
      await pay(amoy, amoyUsdc, testPayment.details.deposit_address, 3_000_000n);

      const settledTest = await until(
        'the test payment paid and paid out',
        () => row(testPayment.payment_id),
        (r) => r.status === 'paid' && r.payout_tx_hash !== null,
        { explain, tries: 600, everyMs: 200 },
      );
      expect(settledTest).toMatchObject({
        mode: 'test',
        status: 'paid',
        chain_id: 80002,
        settled_base_units: '3000000',
      });
      const receipt = await amoy.publicClient.getTransactionReceipt({
        hash: settledTest.payout_tx_hash as `0x${string}`,
      });
      expect(receipt.status).toBe('success');
      expect(await balance(amoy, amoyUsdc, testPayment.details.deposit_address)).toBe(0n);
      expect(await balance(amoy, amoyUsdc, live.addresses[1]!)).toBe(
        BigInt(settledTest.merchant_share_base_units),
      );

      expect(await row(livePayment.payment_id)).toMatchObject({
        mode: 'live',
        status: 'pending',
        amount_received_base_units: '0',
        payout_tx_hash: null,
      });

      // Each key sees its own payment only; the checkout names the test payment's network.
      const status = (id: string, key: string) =>
        fetch(`${api}/payments/api/status/${id}/`, { headers: { 'x-api-key': key } }).then((r) => r.status);
      expect(await status(testPayment.payment_id, testApiKey)).toBe(200);
      expect(await status(testPayment.payment_id, apiKey)).toBe(404);
      expect(await status(livePayment.payment_id, testApiKey)).toBe(404);
      const page = await fetch(`${checkout}/pay/${testPayment.payment_id}`).then((r) => r.text());
      expect(page).toContain('Polygon Amoy');

      // Now the live payment, on the live chain.
      await pay(live, liveUsdc, livePayment.details.deposit_address, 4_000_000n);
      const settledLive = await until(
        'the live payment paid and paid out',
        () => row(livePayment.payment_id),
        (r) => r.status === 'paid' && r.payout_tx_hash !== null,
        { explain, tries: 600, everyMs: 200 },
      );
      expect(settledLive).toMatchObject({
        chain_id: 31337,
        amount_received_base_units: '4000000',
        settled_base_units: '4000000',
      });
      expect(await balance(live, liveUsdc, livePayment.details.deposit_address)).toBe(0n);

      // Webhooks say which mode each payment is in.
      const paid = await eventually(
        async () =>
          receiver.received
            .map(
              (w) =>
                verifyAsMerchant(webhookSecret, w) as {
                  event: string;
                  payment_id: string;
                  livemode: boolean;
                },
            )
            .filter((e) => e.event === 'payment.paid'),
        (events) => events.length >= 2,
      );
      expect(paid.find((e) => e.payment_id === testPayment.payment_id)?.livemode).toBe(false);
      expect(paid.find((e) => e.payment_id === livePayment.payment_id)?.livemode).toBe(true);

      // The CLI rotates the test key only: the new test key sees the test payment, the live key still works.
      const rotated = await runCli(['merchant', 'rotate-key', merchantId, '--mode', 'test', '--json'], env);
      expect(rotated.code).toBe(0);
      const { api_key: newTestKey, mode } = JSON.parse(rotated.stdout);
      expect([newTestKey.slice(0, 8), mode]).toStrictEqual(['sk_test_', 'test']);
      expect(await status(testPayment.payment_id, newTestKey)).toBe(200);
      expect(await status(livePayment.payment_id, apiKey)).toBe(200);
    });
  },
);
