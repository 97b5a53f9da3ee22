import type { PayoutPolicy } from '../../domain/payout.ts';

/**
 * A named database lock this process holds, so that a job (a chain's watcher, a relayer's nonces) runs in one
 * process at a time (adapters/db/singletonLocks.ts: a session advisory lock on PostgreSQL).
 */
export interface JobLease {
  /** Aborts when the lock may have been lost (its connection failed): stop the work at once. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface JobLocks {
  /** The lock named `name`, or undefined while another process holds it. */
  tryAcquire(name: string): Promise<JobLease | undefined>;
}

/** Counts for /metrics and /readyz: cheap aggregate reads, never on a request's path. */
export interface MonitoringStore {
  /** A trivial query; throws when the database cannot be reached. */
  ping(): Promise<void>;
  /** How many payments have each stored status (the expirer may not have caught up with the clock yet). */
  countPaymentsByStatus(): Promise<ReadonlyMap<string, number>>;
  /** Webhook events by delivery status, and when the oldest event still owed a delivery was written. */
  webhookQueue(): Promise<{ byStatus: ReadonlyMap<string, number>; oldestOwedAt: Date | null }>;
  /** Payouts still owed, those delayed (failing since before `delayedSince`), and what fails now, by reason. */
  payoutHealth(policy: PayoutPolicy, delayedSince: Date): Promise<PayoutHealth>;
  /** Each relayer's gas balance as its settler last read it. */
  relayerBalances(): Promise<readonly RelayerBalance[]>;
  /** Gasless authorizations per chain: how many are in each status, and the gas fees paid, all time and since. */
  gaslessRelays(since: Date): Promise<readonly GaslessRelaySummary[]>;
  /** Cross-chain transfers not done, by the step they wait in, with the oldest's creation (decision 0029). */
  bridgeSteps(): Promise<readonly BridgeStepSummary[]>;
}

export interface BridgeStepSummary {
  readonly step: string;
  readonly waiting: number;
  readonly oldestCreatedAt: Date;
}

export interface GaslessRelaySummary {
  readonly chainId: number;
  readonly byStatus: ReadonlyMap<string, number>;
  readonly feeWeiTotal: bigint;
  readonly feeWeiSince: bigint;
}

export interface PayoutHealth {
  /** Payouts owed and not delayed: final funds waiting for a flush, or failing for less than the delay. */
  readonly pending: number;
  readonly delayed: number;
  /** Since when the oldest delayed payout has been failing; null when none is delayed. */
  readonly oldestDelayedSince: Date | null;
  /** Payments whose merchant share, or commission, fails to go out now, by the last decoded reason. */
  readonly failing: readonly {
    readonly share: 'merchant' | 'commission';
    readonly reason: string;
    readonly count: number;
  }[];
}

export interface RelayerBalance {
  readonly chainId: number;
  readonly balanceWei: bigint;
  readonly lowBalanceWei: bigint;
  readonly observedAt: Date;
}
