import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { type Address, createPublicClient, createWalletClient, http } from 'viem';
import { spawnAnvil } from '../src/adapters/chain/anvilProcess.ts';
import { testUsdcAbi } from '../src/adapters/chain/contractAbis.ts';
import { depositPlanner } from '../src/adapters/chain/depositPlanner.ts';
import { migrateToLatest, openDatabase } from '../src/adapters/db/database.ts';
import { inProcessSingletonLocks } from '../src/adapters/db/singletonLocks.ts';
import { createMerchant } from '../src/app/merchants/merchantAdmin.ts';
import { createPayment } from '../src/app/payments/createPayment.ts';
import { systemClock } from '../src/app/shared/ports.ts';
import { loadConfig } from '../src/config/index.ts';
import { createStores } from '../src/main/wiring.ts';
import { runWorker } from '../src/main/worker.ts';
import {
  deploySandboxContracts,
  SANDBOX_ACCOUNTS,
  sandboxAccount,
  sandboxChain,
} from '../src/sandbox/chain.ts';
import { freePort } from '../test/helpers/net.ts';
import { usdcOnlyRates } from '../test/helpers/rates.ts';
import { fmt, isMain, percentile } from './support.ts';

/**
 * Latency from the moment a transfer's block becomes final to the payment's status being `paid`, with the real
 * worker loop polling a real node (goal: p99 within one polling interval). The polling interval is the baseline.
 */
const SAMPLES = 30;
const POLL_INTERVAL_MS = 500;

export async function runFinalityLatencyBench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-bench-'));
  const node = await spawnAnvil({
    port: await freePort(),
    chainId: 31337,
    args: ['--silent', '--slots-in-an-epoch', '1'],
  });
  const handle = openDatabase(`sqlite:${join(dir, 'bench.db')}`);
  const stop = new AbortController();
  try {
    await migrateToLatest(handle.db);
    const chain = sandboxChain(node.rpcUrl);
    const publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 20 });
    const customer = createWalletClient({
      account: sandboxAccount(SANDBOX_ACCOUNTS.customer),
      chain,
      transport: http(node.rpcUrl),
    });
    const { usdc, factory } = await deploySandboxContracts(node.rpcUrl);

    const logger = pino({ level: 'silent' });
    const stores = createStores(handle);
    const clock = systemClock;
    const config = loadConfig({
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_RPC_URL: node.rpcUrl,
      PAYLINK_POLL_INTERVAL: `${POLL_INTERVAL_MS}ms`,
      PAYLINK_START_BLOCK: '0',
    });
    const target = {
      chainId: 31337,
      tokenAddress: usdc,
      acceptedTokens: [{ symbol: 'USDC', address: usdc, decimals: 6 }],
      noticedTokens: [],
      factoryAddress: factory,
      treasuryAddress: sandboxAccount(9).address,
    };
    const { merchant } = await createMerchant(
      { merchants: stores.merchants, clock, webhookAllowPrivate: true },
      {
        name: 'Bench',
        wallet: sandboxAccount(1).address,
        webhookUrl: 'http://127.0.0.1:9/',
        commissionPercent: '1',
      },
    );
    const deps = {
      ...stores,
      deposits: { live: depositPlanner(target) },
      rates: usdcOnlyRates(clock, logger),
      clock,
      maxAmountBaseUnits: 10n ** 12n,
      // No minimum to speak of: amounts here are whatever the test needs (the minimum: test/payments/merchantApi.test.ts).
      minAmountBaseUnits: 1n,
      paymentTtlMs: 3_600_000,
      webhookAllowPrivate: true,
    };
    const worker = runWorker(
      {
        ...stores,
        locks: inProcessSingletonLocks(),
        clock,
        logger,
        config,
        chains: [{ settings: config.liveHomeChain, target, rpcUrls: [node.rpcUrl] }],
      },
      stop.signal,
    );

    const latencies: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const payment = await createPayment(deps, merchant, { amount: '1', currency: 'USDC' });
      const hash = await customer.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: [payment.deposit!.depositAddress as Address, 1_000_000n],
      });
      await publicClient.waitForTransactionReceipt({ hash });
      // Let the watcher see it unconfirmed first, as on a real chain, at a random phase of its polling.
      await sleep(Math.random() * POLL_INTERVAL_MS);
      await publicClient.request({ method: 'anvil_mine', params: ['0x2'] } as never); // now final
      const finalAt = performance.now();
      for (;;) {
        const row = await handle.db
          .selectFrom('payments')
          .select('status')
          .where('id', '=', payment.id)
          .executeTakeFirstOrThrow();
        if (row.status === 'paid') break;
        await sleep(5);
      }
      latencies.push(performance.now() - finalAt);
    }
    stop.abort();
    await worker;
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    return [
      `finality → paid: ${SAMPLES} payments, real worker loop polling anvil every ${POLL_INTERVAL_MS} ms (baseline: the interval)`,
      `  p50 ${fmt(p50)} ms (${fmt(p50 / POLL_INTERVAL_MS, 2)} intervals)   p99 ${fmt(p99)} ms (${fmt(p99 / POLL_INTERVAL_MS, 2)} intervals; goal ≤ 1: ${p99 <= POLL_INTERVAL_MS ? 'met' : 'NOT met'})`,
    ];
  } finally {
    stop.abort();
    await handle.close();
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  for (const line of await runFinalityLatencyBench()) process.stdout.write(`${line}\n`);
}
