import type { PayoutPolicy } from '../../domain/payout.ts';
import { type ChainProbe, type HealthDeps, settle, watcherLagBlocks } from './checkReadiness.ts';
import type { GaslessRelaySummary, MonitoringStore, PayoutHealth } from './ports.ts';

export interface MeasureDeps extends Omit<HealthDeps, 'monitoring'> {
  readonly monitoring: MonitoringStore;
  readonly payoutPolicy: PayoutPolicy;
}

/** Gauges' values at one moment; a value that could not be read is absent (its gauge keeps no stale value). */
export interface ServiceMeasurements {
  readonly databaseUp: boolean;
  readonly paymentsByStatus?: ReadonlyMap<string, number>;
  readonly webhookEventsByStatus?: ReadonlyMap<string, number>;
  /** Age of the oldest event still owed a delivery; 0 when none is. */
  readonly webhookOldestOwedSeconds?: number;
  /** One per chain this process probes (the live one, and the test one when it is another chain). */
  readonly chains: readonly ChainMeasurements[];
  readonly payouts?: PayoutMeasurements;
  /** Each relayer's gas balance as its settler last read it (any worker process). */
  readonly relayers?: readonly RelayerMeasurements[];
  /** Gasless payment per chain: authorizations by status, and what the gasless relayer paid in gas. */
  readonly gasless?: readonly GaslessRelaySummary[];
  /** Cross-chain transfers waiting, per step (burn, attest, mint), and the oldest one's age. */
  readonly bridge?: readonly {
    readonly step: string;
    readonly waiting: number;
    readonly oldestSeconds: number;
  }[];
}

export interface PayoutMeasurements {
  readonly pending: number;
  readonly delayed: number;
  /** How long the oldest delayed payout has been failing; 0 when none is delayed. */
  readonly oldestDelayedSeconds: number;
  readonly failing: PayoutHealth['failing'];
}

export interface RelayerMeasurements {
  readonly chainId: number;
  readonly balanceWei: bigint;
  readonly lowBalanceWei: bigint;
  /** Since the settler last read the balance (it reads it before each flush it sends). */
  readonly ageSeconds: number;
}

export interface ChainMeasurements {
  readonly chainId: number;
  readonly rpcUp: boolean;
  readonly watcherLagBlocks?: number;
  /** Time between the last block the watcher scanned and the head block, by their timestamps. */
  readonly watcherLagSeconds?: number;
  /** Since the watcher last wrote its cursor. */
  readonly watcherCursorAgeSeconds?: number;
  /** Now minus the finalized block's timestamp: how stale "final" is. */
  readonly finalizedHeadAgeSeconds?: number;
}

const seconds = (ms: number) => Math.max(0, ms) / 1000;
const HOUR_MS = 60 * 60_000;

/**
 * Reads what /metrics reports, from the database and the chain nodes: the API process exposes the numbers of
 * the whole deployment (workers have no HTTP port), so they come from shared state, not from the worker's memory.
 * Each read is bounded in time; one failing read leaves the others.
 */
export async function measureService(deps: MeasureDeps, timeoutMs: number): Promise<ServiceMeasurements> {
  const nowMs = deps.clock.now().getTime();
  const chains = [deps.chain, deps.testChain].filter((chain) => chain !== undefined);
  const delayedSince = new Date(nowMs - deps.payoutPolicy.delayedAfterMs);
  const [ping, payments, webhooks, payouts, relayers, gasless, bridge, ...chainMeasurements] =
    await Promise.all([
      settle(() => deps.monitoring.ping(), timeoutMs),
      settle(() => deps.monitoring.countPaymentsByStatus(), timeoutMs),
      settle(() => deps.monitoring.webhookQueue(), timeoutMs),
      settle(() => deps.monitoring.payoutHealth(deps.payoutPolicy, delayedSince), timeoutMs),
      settle(() => deps.monitoring.relayerBalances(), timeoutMs),
      settle(() => deps.monitoring.gaslessRelays(new Date(nowMs - HOUR_MS)), timeoutMs),
      settle(() => deps.monitoring.bridgeSteps(), timeoutMs),
      ...chains.map((chain) => measureChain(deps, chain, nowMs, timeoutMs)),
    ]);
  const result: { -readonly [K in keyof ServiceMeasurements]: ServiceMeasurements[K] } = {
    databaseUp: ping.ok,
    chains: chainMeasurements,
  };
  if (payments.ok) result.paymentsByStatus = payments.value;
  if (payouts.ok) {
    const { pending, delayed, oldestDelayedSince, failing } = payouts.value;
    const oldestDelayedSeconds = oldestDelayedSince ? seconds(nowMs - oldestDelayedSince.getTime()) : 0;
    result.payouts = { pending, delayed, oldestDelayedSeconds, failing };
  }
  if (relayers.ok) {
    result.relayers = relayers.value.map((r) => ({
      chainId: r.chainId,
      balanceWei: r.balanceWei,
      lowBalanceWei: r.lowBalanceWei,
      ageSeconds: seconds(nowMs - r.observedAt.getTime()),
    }));
  }
  if (gasless.ok) result.gasless = gasless.value;
  if (bridge.ok) {
    result.bridge = bridge.value.map((b) => ({
      step: b.step,
      waiting: b.waiting,
      oldestSeconds: seconds(nowMs - b.oldestCreatedAt.getTime()),
    }));
  }
  if (webhooks.ok) {
    result.webhookEventsByStatus = webhooks.value.byStatus;
    const oldest = webhooks.value.oldestOwedAt;
    result.webhookOldestOwedSeconds = oldest ? seconds(nowMs - oldest.getTime()) : 0;
  }
  return result;
}

async function measureChain(
  deps: MeasureDeps,
  chain: ChainProbe,
  nowMs: number,
  timeoutMs: number,
): Promise<ChainMeasurements> {
  const [cursor, head, finalized] = await Promise.all([
    settle(() => deps.ledger.cursor(chain.chainId), timeoutMs),
    settle(() => chain.reader.latestBlockNumber(), timeoutMs),
    settle(() => chain.reader.finalizedBlockNumber(), timeoutMs),
  ]);
  const result: { -readonly [K in keyof ChainMeasurements]: ChainMeasurements[K] } = {
    chainId: chain.chainId,
    rpcUp: head.ok,
  };
  if (cursor.ok && cursor.value) {
    const headNumber = head.ok ? head.value : undefined;
    const lag = watcherLagBlocks(cursor.value, headNumber);
    result.watcherLagBlocks = Number(lag);
    result.watcherCursorAgeSeconds = seconds(nowMs - cursor.value.updatedAt.getTime());
    if (lag === 0n) {
      result.watcherLagSeconds = 0;
    } else if (headNumber !== undefined) {
      const [headBlock, lastScanned] = await Promise.all([
        settle(() => chain.reader.blockAt(headNumber), timeoutMs),
        settle(() => chain.reader.blockAt(cursor.value!.nextBlock - 1n), timeoutMs),
      ]);
      if (headBlock.ok && headBlock.value && lastScanned.ok && lastScanned.value) {
        result.watcherLagSeconds = seconds(
          headBlock.value.timestamp.getTime() - lastScanned.value.timestamp.getTime(),
        );
      }
    }
  }
  if (finalized.ok) {
    const block = await settle(() => chain.reader.blockAt(finalized.value), timeoutMs);
    if (block.ok && block.value)
      result.finalizedHeadAgeSeconds = seconds(nowMs - block.value.timestamp.getTime());
  }
  return result;
}
