import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { openDatabase } from '../../src/adapters/db/database.ts';
import { deploySandboxContracts, SANDBOX_ACCOUNTS, sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { builtPaylinkBin } from '../helpers/builtCli.ts';
import { runCli } from '../helpers/cli.ts';
import { createEmptyDatabase, dialects } from '../helpers/database.ts';
import { eventually, freePort } from '../helpers/net.ts';
import { verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

/**
 * A real `paylink serve` process killed with SIGKILL in the middle of flushing a refund's forwarder: its payout
 * transaction signed, sent and mined, not yet final, not yet recorded as done. The chain stands still while it
 * is dead (anvil mines only when a transaction arrives, or when the test says so), so the kill always lands in
 * that window. A new process, with nothing but the database, must finish the refund, sending the customer the
 * amount exactly once, and tell the merchant once.
 */
describe.each(dialects)('a refund flush interrupted by SIGKILL on %s', { timeout: 180_000 }, (dialect) => {
  let anvil: Anvil;
  let url: string;
  let drop: () => Promise<void>;
  let cwd: string;
  let env: Record<string, string>;
  let usdc: Address;
  let receiver: WebhookReceiver;
  let apiKey: string;
  let webhookSecret: string;
  let apiPort: number;
  let server: ChildProcess | undefined;

  const start = async () => {
    const child = spawn(process.execPath, [await builtPaylinkBin(), 'serve'], {
      cwd,
      env: {
        ...env,
        PAYLINK_API_PORT: String(apiPort),
        PAYLINK_CHECKOUT_PORT: String(await freePort()),
        PAYLINK_SANDBOX_WEBHOOK_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.resume();
    server = child;
    const up = await eventually(
      () =>
        fetch(`http://127.0.0.1:${apiPort}/payments/api/convert/?amount=1&currency=USD`).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 401,
    );
    expect(up).toBe(401);
  };
  const kill = async () => {
    const child = server;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  const api = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${apiPort}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const customer = () =>
    createWalletClient({
      account: privateKeyToAccount(sandboxPrivateKey(SANDBOX_ACCOUNTS.customer)),
      chain: anvil.chain,
      transport: http(anvil.rpcUrl),
    });
  const transfer = async (to: string, baseUnits: bigint) => {
    const hash = await customer().writeContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [to as Address, baseUnits],
    });
    await anvil.publicClient.waitForTransactionReceipt({ hash });
  };
  const balanceOf = (address: string) =>
    anvil.publicClient.readContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: 'balanceOf',
      args: [address as Address],
    });
  /** Enough blocks on top for everything so far to be final (`finalized` trails latest by 2). */
  const finalizeAll = () => anvil.testClient.mine({ blocks: 3 });
  /** The relayer transactions of the settlements that flush the refund's forwarder. */
  const refundTransactions = async (refundId: string) => {
    const { db } = openDatabase(url);
    try {
      return await db
        .selectFrom('relayer_transactions as t')
        .innerJoin('settlement_items as i', 'i.settlement_id', 't.settlement_id')
        .innerJoin('settlements as s', 's.id', 't.settlement_id')
        .select(['t.tx_hash', 't.status as tx_status', 's.status as settlement_status'])
        .where('i.payment_id', '=', refundId)
        .execute();
    } finally {
      await db.destroy();
    }
  };

  beforeAll(async () => {
    anvil = await startAnvil({ args: ['--slots-in-an-epoch', '1'] });
    ({ url, drop } = await createEmptyDatabase(dialect));
    cwd = mkdtempSync(join(tmpdir(), 'paylink-refund-crash-'));
    receiver = await new WebhookReceiver().start();
    const contracts = await deploySandboxContracts(anvil.rpcUrl);
    usdc = contracts.usdc;
    apiPort = await freePort();
    env = {
      PATH: process.env.PATH ?? '',
      PAYLINK_DATABASE_URL: url,
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_RPC_URL: anvil.rpcUrl,
      // The sandbox's first chain only: its second would be looked for on the port after this anvil's.
      PAYLINK_CHAINS: '',
      PAYLINK_USDC_ADDRESS: usdc,
      PAYLINK_FACTORY_ADDRESS: contracts.factory,
      PAYLINK_POLL_INTERVAL: '200ms',
      PAYLINK_START_BLOCK: '0',
      PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'true',
      PAYLINK_LOG_LEVEL: 'warn',
    };
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const created = await runCli(
      [
        'merchant',
        'create',
        '--name',
        'Crash Shop',
        '--wallet',
        anvil.addresses[SANDBOX_ACCOUNTS.merchant]!,
        '--webhook-url',
        `${receiver.base}/hooks`,
        '--json',
      ],
      env,
    );
    ({ api_key: apiKey, webhook_secret: webhookSecret } = JSON.parse(created.stdout));
  });

  afterAll(async () => {
    await kill();
    await receiver?.stop();
    await anvil?.stop();
    await drop?.();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('the restarted process finishes the refund: the customer receives it exactly once, the merchant is told once', async () => {
    await start();
    const payment = await api('POST', '/payments/api/create/', { amount: '25.00', currency: 'USDC' });
    expect(payment.status).toBe(201);
    await transfer(payment.body.details.deposit_address, 25_000_000n);
    await finalizeAll();
    const paid = await eventually(
      () => api('GET', `/payments/api/status/${payment.body.payment_id}/`),
      (r) => r.body.status === 'paid',
    );
    expect(paid.body.status).toBe('paid');
    // The payment's own payout goes first and must be final (a block at a time): the settler keeps one flush
    // in flight, and the refund's must be the only one when the process is killed.
    const settled = await eventually(
      async () => {
        await anvil.testClient.mine({ blocks: 1 });
        return api('GET', `/payments/api/status/${payment.body.payment_id}/`);
      },
      (r) => r.body.payout_status === 'sent',
    );
    expect(settled.body.payout_status).toBe('sent');

    const refundWallet = anvil.addresses[7]!;
    const before = await balanceOf(refundWallet);
    const created = await api('POST', '/payments/api/refunds/', {
      payment_id: payment.body.payment_id,
      amount: '10.00',
      address: refundWallet,
    });
    expect(created.status).toBe(201);
    const refundId = created.body.refund_id as string;
    await transfer(created.body.deposit_address, 10_000_000n);
    await finalizeAll();

    // The flush is sent and mined; with no block on top it cannot be final: the process is killed there.
    const inFlight = await eventually(
      () => refundTransactions(refundId),
      (rows) => rows.some((row) => row.tx_status === 'broadcast' || row.tx_status === 'mined'),
    );
    expect(inFlight).toHaveLength(1);
    await kill();
    expect(server?.signalCode).toBe('SIGKILL');
    const [sent] = await refundTransactions(refundId);
    expect(sent!.settlement_status).not.toBe('confirmed');
    // The money already moved on chain; only the process's record of it is unfinished.
    expect(await balanceOf(refundWallet)).toBe(before + 10_000_000n);

    await finalizeAll();
    await start();
    const refunded = await eventually(
      () => api('GET', `/payments/api/refunds/${refundId}/`),
      (r) => r.body.status === 'refunded',
    );
    expect(refunded.body).toMatchObject({ status: 'refunded', amount_sent: '10.00', txid: sent!.tx_hash });
    // A few more passes change nothing: no second flush, no second payment to the customer.
    await finalizeAll();
    await eventually(
      () => api('GET', `/payments/api/refunds/${refundId}/`),
      () => false,
      10,
      200,
    );
    expect(await balanceOf(refundWallet)).toBe(before + 10_000_000n);
    expect(await balanceOf(created.body.deposit_address)).toBe(0n);
    expect(await refundTransactions(refundId)).toEqual([
      { tx_hash: sent!.tx_hash, tx_status: 'mined', settlement_status: 'confirmed' },
    ]);

    const told = await eventually(
      async () =>
        receiver.received
          .map((request) => verifyAsMerchant(webhookSecret, request) as Body)
          .filter((body) => body.refund_id === refundId && body.event === 'refund.refunded'),
      (bodies) => bodies.length > 0,
    );
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ status: 'refunded', txid: sent!.tx_hash, amount_sent: '10.00' });
  });
});
