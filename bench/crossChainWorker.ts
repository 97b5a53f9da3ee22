import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { POLYGON_DOMAIN } from '../src/adapters/cctp/cctpMessage.ts';
import { testUsdcAbi } from '../src/adapters/chain/contractAbis.ts';
import { predictDepositAddress } from '../src/adapters/chain/forwarder.ts';
import { bridgeRepository } from '../src/adapters/db/bridgeRepository.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../src/adapters/db/database.ts';
import { merchantRow } from '../src/adapters/db/merchantRepository.ts';
import { paymentRow } from '../src/adapters/db/paymentRepository.ts';
import { inProcessSingletonLocks } from '../src/adapters/db/singletonLocks.ts';
import type { TransferSpeed } from '../src/app/bridge/ports.ts';
import { systemClock } from '../src/app/shared/ports.ts';
import { type ChainSettings, loadConfig } from '../src/config/index.ts';
import type { Payment } from '../src/domain/payment.ts';
import type { SourceBridgeChain } from '../src/main/chains/bridgeJobs.ts';
import type { WorkerChain } from '../src/main/chains/workerChains.ts';
import { statusRefreshOnMint } from '../src/main/mintRefresh.ts';
import { createStores } from '../src/main/wiring.ts';
import { runWorker } from '../src/main/worker.ts';
import { testMerchant } from '../test/fakes/merchantFixture.ts';
import { testPayment } from '../test/fakes/paymentFixture.ts';
import {
  type CctpChain,
  type CctpChains,
  CIRCLE,
  RELAYER_KEY,
  startCctpChains,
} from '../test/helpers/cctpChains.ts';

/**
 * The world of test/bridge/fastBurn.test.ts, running on its own: Polygon (home) and two source chains, "Base" burning
 * fast and "Arbitrum" standard, each source's finality `SOURCE_FINALITY` blocks behind its head, all three mining
 * a block every `BLOCK_SECONDS`; the local attestation service with Circle's pace per speed; and the product's
 * worker (`runWorker`: watchers, source bridge jobs, the home settler with its mints, the mint's status refresh)
 * polling every `POLL_INTERVAL_MS`, on a SQLite database. What bench/fastPaid.ts times.
 */
export const BLOCK_SECONDS = 1;
export const POLL_INTERVAL_MS = 1_000;
export const SOURCE_FINALITY = 16;
/** Circle signs a fast burn one block deep, a standard one once the source is final (as the watcher reads it). */
export const ATTESTATION_CONFIRMATIONS = { fast: 1, standard: SOURCE_FINALITY };
export const FAST_CONFIRMATIONS = 2;
/** Polygon's mint counts once mined (as test/helpers/bridgeWorker.ts): "one Polygon block" in the goal. */
const HOME_CONFIRMATIONS = 0;
const AMOUNT = 10_000_000n;
const COMMISSION_BPS = 100;
const MAX_FAST_FEE_BPS = 10;
const CUSTOMER = 3;

export type Lane = 'home' | TransferSpeed;
const CHAIN_OF: Record<Lane, string> = { home: 'polygon', fast: 'base', standard: 'arbitrum' };

export interface CrossChainWorker {
  readonly handle: DatabaseHandle;
  readonly attestationUrl: string;
  chainOf(lane: Lane): CctpChain;
  /** A new payment of 10 USDC, its deposit address the same on every chain. */
  newPayment(): Promise<Payment>;
  /** The customer's transfer of the price to the payment's address on the lane's chain: sent, not awaited. */
  deposit(lane: Lane, payment: Payment): Promise<void>;
  stop(): Promise<void>;
}

export async function startCrossChainWorker(): Promise<CrossChainWorker> {
  const net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: POLYGON_DOMAIN },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: MAX_FAST_FEE_BPS },
      { name: 'arbitrum', chainId: 42161, domain: 3 },
    ],
    { confirmations: ATTESTATION_CONFIRMATIONS, fastFeeBps: 1 },
  );
  const dir = mkdtempSync(join(tmpdir(), 'paylink-bench-'));
  const handle = openDatabase(`sqlite:${join(dir, 'bench.db')}`);
  const stop = new AbortController();
  let worker: Promise<void> | undefined;
  const shutdown = async () => {
    stop.abort();
    await worker;
    await handle.close();
    await net.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await migrateToLatest(handle.db);
    await handle.db
      .insertInto('merchants')
      .values(merchantRow(testMerchant({ commissionBps: COMMISSION_BPS })))
      .execute();
    const customerFunds = AMOUNT * 1_000n;
    for (const chain of Object.values(net.chains)) await fundCustomer(chain, customerFunds);
    // From here on, blocks come at their interval only, as on a real chain.
    for (const chain of Object.values(net.chains)) {
      await chain.anvil.testClient.request({
        method: 'evm_setIntervalMining',
        params: [BLOCK_SECONDS],
      } as never);
    }
    worker = (await startWorker(net, handle, stop.signal)).running;
    return worldOf(net, handle, shutdown);
  } catch (error) {
    await shutdown();
    throw error;
  }
}

async function fundCustomer(chain: CctpChain, amount: bigint): Promise<void> {
  const hash = await chain.anvil.wallet(CIRCLE).writeContract({
    address: chain.cctp.usdc,
    abi: testUsdcAbi,
    functionName: 'mint',
    args: [chain.anvil.addresses[CUSTOMER]!, amount],
  });
  await chain.anvil.publicClient.waitForTransactionReceipt({ hash });
}

function worldOf(net: CctpChains, handle: DatabaseHandle, stop: () => Promise<void>): CrossChainWorker {
  const polygon = net.chain('polygon');
  const { factory, implementation } = net.factories.polygon!;
  const treasury = privateKeyToAccount(generatePrivateKey()).address;
  let paymentNumber = 0;
  return {
    handle,
    attestationUrl: net.attestation.url,
    chainOf: (lane) => net.chain(CHAIN_OF[lane]),
    async newPayment() {
      paymentNumber += 1;
      const id = randomUUID();
      const merchant = privateKeyToAccount(generatePrivateKey()).address;
      const fixture = testPayment(paymentNumber);
      const now = new Date();
      const payment: Payment = {
        ...fixture,
        id,
        payoutAddress: merchant,
        webhookUrl: 'http://127.0.0.1:9/hooks',
        quote: { ...fixture.quote, commissionBps: COMMISSION_BPS },
        createdAt: now,
        expiresAt: new Date(now.getTime() + 3_600_000),
        deposit: {
          chainId: polygon.chainId,
          tokenAddress: polygon.cctp.usdc,
          factoryAddress: factory,
          treasuryAddress: treasury,
          depositAddress: predictDepositAddress({
            factory,
            implementation,
            params: { merchant, treasury, feeBps: COMMISSION_BPS, paymentId: id },
            version: 3,
          }),
        },
      };
      await handle.db.insertInto('payments').values(paymentRow(payment)).execute();
      return payment;
    },
    async deposit(lane, payment) {
      const chain = net.chain(CHAIN_OF[lane]);
      await chain.anvil.wallet(CUSTOMER).writeContract({
        address: chain.cctp.usdc,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: [payment.deposit!.depositAddress as Address, AMOUNT],
      });
    },
    stop,
  };
}

/** The product's worker over the three chains, wired as src/main/server.ts wires it from a configuration. */
async function startWorker(
  net: CctpChains,
  handle: DatabaseHandle,
  signal: AbortSignal,
): Promise<{ running: Promise<void> }> {
  const polygon = net.chain('polygon');
  const config = loadConfig({
    PAYLINK_NETWORK: 'sandbox',
    PAYLINK_RPC_URL: polygon.anvil.rpcUrl,
    PAYLINK_POLL_INTERVAL: `${POLL_INTERVAL_MS}ms`,
  });
  const settingsOf = async (chain: CctpChain, confirmations: number): Promise<ChainSettings> => ({
    ...config.liveHomeChain,
    chainId: chain.chainId,
    rpcUrls: [chain.anvil.rpcUrl],
    finality: { kind: 'confirmations', confirmations },
    pollIntervalMs: POLL_INTERVAL_MS,
    startBlock: await chain.anvil.publicClient.getBlockNumber(),
  });
  const targetOf = (chain: CctpChain) => ({
    chainId: chain.chainId,
    tokenAddress: chain.cctp.usdc,
    acceptedTokens: [{ symbol: 'USDC', address: chain.cctp.usdc, decimals: 6 }],
    noticedTokens: [],
    factoryAddress: net.factories.polygon!.factory,
    treasuryAddress: privateKeyToAccount(generatePrivateKey()).address,
    forwarderVersion: 3 as const,
  });
  const home: WorkerChain = {
    settings: await settingsOf(polygon, HOME_CONFIRMATIONS),
    target: targetOf(polygon),
    rpcUrls: [polygon.anvil.rpcUrl],
    relayerKey: RELAYER_KEY,
    cctp: { usdc: polygon.cctp.usdc, messageTransmitter: polygon.cctp.messageTransmitter },
  };
  const sources = [
    { chain: net.chain('base'), speed: 'fast' as const },
    { chain: net.chain('arbitrum'), speed: 'standard' as const },
  ];
  const sourceChains: WorkerChain[] = await Promise.all(
    sources.map(async ({ chain }) => ({
      settings: await settingsOf(chain, SOURCE_FINALITY),
      target: targetOf(chain),
      rpcUrls: [chain.anvil.rpcUrl],
      homeChainId: polygon.chainId,
      homeFactory: net.factories.polygon!.factory,
    })),
  );
  const chains = [home, ...sourceChains];
  const stores = createStores(handle);
  const running = runWorker(
    {
      ...stores,
      locks: inProcessSingletonLocks(),
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      config,
      chains,
      bridge: {
        store: bridgeRepository(handle, statusRefreshOnMint(config, chains)),
        attestation: { pollIntervalMs: POLL_INTERVAL_MS, timeoutMs: 10_000 },
        sources: sources.map(({ chain, speed }) => sourceBridgeChain(chain, speed, net.attestation.url)),
      },
    },
    signal,
  );
  return { running };
}

function sourceBridgeChain(
  chain: CctpChain,
  speed: TransferSpeed,
  attestationUrl: string,
): SourceBridgeChain {
  return {
    chainId: chain.chainId,
    homeChainId: 137,
    attestationUrl,
    domain: chain.domain,
    rpcUrls: [chain.anvil.rpcUrl],
    finality: { kind: 'confirmations', confirmations: SOURCE_FINALITY },
    pollIntervalMs: POLL_INTERVAL_MS,
    relayerKey: RELAYER_KEY,
    relayerLowBalanceWei: 10n ** 18n,
    usdc: chain.cctp.usdc,
    tokenMessenger: chain.cctp.tokenMessenger,
    messageTransmitter: chain.cctp.messageTransmitter,
    speed,
    maxFeeBps: speed === 'fast' ? MAX_FAST_FEE_BPS : 0,
    fastConfirmations: FAST_CONFIRMATIONS,
    dustThresholdBaseUnits: 1n,
    attestationExpectedMs: 60_000,
  };
}
