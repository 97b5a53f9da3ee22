import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { depositPlanner } from '../src/adapters/chain/depositPlanner.ts';
import { migrateToLatest, openDatabase } from '../src/adapters/db/database.ts';
import { createWebhookSender } from '../src/adapters/outbound/webhookSender.ts';
import type { TransferRecord } from '../src/app/chain/ports.ts';
import { refreshPayments } from '../src/app/chain/refreshPayments.ts';
import { createMerchant } from '../src/app/merchants/merchantAdmin.ts';
import { createPayment } from '../src/app/payments/createPayment.ts';
import { systemClock } from '../src/app/shared/ports.ts';
import { dispatchWebhooks, runWebhookDispatcher } from '../src/app/webhooks/dispatchWebhooks.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../src/domain/webhookRetry.ts';
import { signWebhook } from '../src/domain/webhookSignature.ts';
import { createStores } from '../src/main/wiring.ts';
import { usdcOnlyRates } from '../test/helpers/rates.ts';
import { fmt, isMain, percentile, timed } from './support.ts';

/**
 * Webhook delivery: deliveries per second from a backlog to a healthy local receiver, and the latency from a
 * status change (the event's `created_at`) to its arrival at the receiver while events keep coming (issue goal:
 * ≥ 500/s and ≤ 100 ms). Each is printed next to a baseline measured in the same run: the same number of signed
 * POSTs sent by a bare loop with the same HTTP client and concurrency, without the database — what delivery
 * would cost if claiming, recording and scheduling were free.
 * SQLite in a temporary directory, or PAYLINK_BENCH_DATABASE_URL (postgres://…).
 */
const BACKLOG = 2_000;
const STREAM = 1_000;
const STREAM_RATE_PER_S = 250;
const BATCH = 32;
const INTERVAL_MS = 10;
const CHAIN = {
  chainId: 31337,
  tokenAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
} as const;

/** A merchant's endpoint that answers 204 at once and notes when each event arrived. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = request.headers['webhook-id'];
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, arrivals, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function runWebhookBench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-bench-'));
  const url = process.env.PAYLINK_BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
  const handle = openDatabase(url);
  const receiver = await startReceiver();
  const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 15_000 });
  const logger = pino({ level: 'warn' });
  try {
    await migrateToLatest(handle.db);
    const stores = createStores(handle);
    const clock = systemClock;
    const { merchant } = await createMerchant(
      { merchants: stores.merchants, clock, webhookAllowPrivate: true },
      { name: 'Bench', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', webhookUrl: receiver.url },
    );
    const paymentDeps = {
      payments: stores.payments,
      deposits: { live: depositPlanner(CHAIN) },
      rates: usdcOnlyRates(clock, logger),
      clock,
      paymentTtlMs: 3_600_000,
      maxAmountBaseUnits: 10n ** 12n,
      // No minimum to speak of: amounts here are whatever the test needs (the minimum: test/payments/merchantApi.test.ts).
      minAmountBaseUnits: 1n,
      webhookAllowPrivate: true,
    };
    let block = 1n;
    const newPayment = () => createPayment(paymentDeps, merchant, { amount: '10', currency: 'USDC' });
    /** The status change: a final transfer paying it in full, which writes one `payment.paid` event. */
    const pay = async (payment: Awaited<ReturnType<typeof newPayment>>) => {
      const blockHash = `0x${randomBytes(32).toString('hex')}`;
      const transfer: TransferRecord = {
        id: `${CHAIN.chainId}:${blockHash}:0`,
        chainId: CHAIN.chainId,
        paymentId: payment.id,
        txHash: `0x${randomBytes(32).toString('hex')}`,
        blockHash,
        tokenAddress: CHAIN.tokenAddress.toLowerCase(),
        tokenSymbol: 'USDC',
        fromAddress: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
        toAddress: payment.deposit!.depositAddress.toLowerCase(),
        amountBaseUnits: payment.quote.usdcBaseUnits,
        blockNumber: block++,
        logIndex: 0,
        blockTimestamp: clock.now(),
        final: true,
        orphaned: false,
      };
      const now = clock.now();
      await stores.ledger.transaction(async (tx) =>
        refreshPayments(tx, await tx.insertTransfers([transfer]), now),
      );
    };
    const deps = {
      webhooks: stores.webhooks,
      sender,
      clock,
      logger,
      config: { retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS, leaseMs: 75_000, batchSize: BATCH },
    };

    // 1. Throughput: a backlog of events, delivered by passes of the dispatcher.
    for (let i = 0; i < BACKLOG; i++) await pay(await newPayment());
    const drained = await timed(async () => {
      let delivered = 0;
      while (delivered < BACKLOG) {
        const pass = await dispatchWebhooks(deps);
        delivered += pass.delivered;
        if (pass.attempted === 0) throw new Error('backlog not delivered');
      }
    });
    const deliveriesPerS = (BACKLOG / drained.ms) * 1000;

    // Baseline: the same number of signed POSTs, same client and concurrency, no database.
    const secret = merchant.webhookSecret;
    const body = JSON.stringify({ id: 'evt_bench', event: 'payment.paid', amount: '10.00' });
    const postLatencies: number[] = [];
    const bare = await timed(async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: BATCH }, async () => {
          while (next < BACKLOG) {
            const id = `evt_bare${next++}`;
            const headers = signWebhook({ id, timestamp: new Date(), body, secrets: [secret] });
            const response = await sender.send({ url: receiver.url, headers, body });
            if (response.kind !== 'response') throw new Error(response.error);
            postLatencies.push(response.durationMs);
          }
        }),
      );
    });
    const barePerS = (BACKLOG / bare.ms) * 1000;

    // 2. Latency: events arriving at a steady rate while the dispatcher loop runs.
    // The payments exist beforehand: what is timed is the status change (as the watcher makes it) onwards.
    const waiting = [];
    for (let i = 0; i < STREAM; i++) waiting.push(await newPayment());
    const controller = new AbortController();
    const loop = runWebhookDispatcher(deps, { intervalMs: INTERVAL_MS, signal: controller.signal });
    const firstStreamed = receiver.arrivals.size;
    const started = Date.now();
    for (let i = 0; i < STREAM; i++) {
      await pay(waiting[i]!);
      const due = started + ((i + 1) * 1000) / STREAM_RATE_PER_S;
      if (due > Date.now()) await sleep(due - Date.now());
    }
    while (receiver.arrivals.size < firstStreamed + STREAM) await sleep(20);
    controller.abort();
    await loop;
    const events = await stores.webhooks.listEvents({ status: 'delivered', limit: STREAM });
    const latencies = events.map((e) => receiver.arrivals.get(e.id)! - e.createdAt.getTime());

    // A sequential bare POST, for the latency baseline: the network and receiver part of a delivery.
    const sequential: number[] = [];
    for (let i = 0; i < 200; i++) {
      const headers = signWebhook({ id: `evt_seq${i}`, timestamp: new Date(), body, secrets: [secret] });
      const response = await sender.send({ url: receiver.url, headers, body });
      sequential.push(response.durationMs);
    }

    const database = url.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL';
    const p99 = percentile(latencies, 99);
    const bareP99 = percentile(sequential, 99);
    return [
      `  ${database}; receiver on 127.0.0.1 answering 204; batch ${BATCH}; loop interval ${INTERVAL_MS} ms`,
      `  throughput   ${fmt(deliveriesPerS)} deliveries/s (${fmt(BACKLOG)} queued events, ${fmt(drained.ms)} ms)`,
      `    baseline   ${fmt(barePerS)} signed POSTs/s, same client and concurrency, no database`,
      `    ratio      ${fmt(deliveriesPerS / barePerS, 2)} of the bare loop (goal: ≥ 500 deliveries/s)`,
      `  latency      status change → delivery at ${STREAM_RATE_PER_S} events/s: p50 ${fmt(percentile(latencies, 50), 1)} ms, ` +
        `p99 ${fmt(p99, 1)} ms, max ${fmt(Math.max(...latencies), 1)} ms (${latencies.length} events)`,
      `    baseline   one signed POST: p50 ${fmt(percentile(sequential, 50), 1)} ms, p99 ${fmt(bareP99, 1)} ms ` +
        `(concurrent: p99 ${fmt(percentile(postLatencies, 99), 1)} ms)`,
      `    ratio      p99 ${fmt(p99 / bareP99, 1)}× a bare POST (goal: p99 ≤ 100 ms)`,
    ];
  } finally {
    sender.close();
    await receiver.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  for (const line of await runWebhookBench()) process.stdout.write(`${line}\n`);
}
