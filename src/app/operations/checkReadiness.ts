import type { PayoutPolicy } from '../../domain/payout.ts';
import type { ChainCursor, ChainReader, Ledger } from '../chain/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { MonitoringStore } from './ports.ts';

/** A chain /readyz and /metrics probe: its node, and its watcher's cursor in the database. */
export interface ChainProbe {
  readonly chainId: number;
  readonly reader: Pick<ChainReader, 'latestBlockNumber' | 'finalizedBlockNumber' | 'blockAt'>;
}

/** What /readyz and /metrics read: the database, the chain nodes and the watchers' cursors. */
export interface HealthDeps {
  readonly monitoring: Pick<MonitoringStore, 'ping' | 'payoutHealth'>;
  /** When payouts count as delayed; absent: payouts are not reported. */
  readonly payoutPolicy?: PayoutPolicy | undefined;
  readonly ledger: Pick<Ledger, 'cursor'>;
  readonly clock: Clock;
  /** The live chain; absent: the RPC and the watcher are not checked. */
  readonly chain?: ChainProbe | undefined;
  /** The test-mode chain, when it is another chain than the live one: reported, but never makes the API unready. */
  readonly testChain?: ChainProbe | undefined;
}

export interface ReadinessOptions {
  /** Blocks the watcher may be behind the node's head. */
  readonly maxLagBlocks: number;
  /** How long the watcher may go without advancing while behind. */
  readonly maxStallMs: number;
  /** Bound on each probe, so /readyz answers even when a dependency hangs. */
  readonly timeoutMs: number;
}

export type CheckResult =
  | { readonly status: 'ok'; readonly details?: Readonly<Record<string, number | string>> }
  | { readonly status: 'failing'; readonly reason: string }
  | { readonly status: 'skipped'; readonly reason: string };

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: {
    readonly database: CheckResult;
    readonly rpc: CheckResult;
    readonly watcher: CheckResult;
    readonly test_rpc?: CheckResult;
    readonly test_watcher?: CheckResult;
    readonly payouts?: CheckResult;
  };
}

/**
 * Whether this API process should take traffic: the database answers, the chain node answers, and the chain
 * watcher (in whichever process runs it) keeps up — its cursor in the database is close to the node's head,
 * or, if behind, advanced recently. A watcher that is caught up is fine however long ago it last wrote: on a
 * quiet chain (the sandbox mines on demand) there is nothing to write.
 *
 * The test chain is checked the same way and reported beside, but a test network down (Amoy has its outages)
 * must not take the live API out of a load balancer: it never makes the process unready. Delayed payouts are
 * reported too (an operator's signal, with the reason), and never make it unready either: the API can still
 * sell links while a token is paused, and taking it down would not bring a payout back.
 */
export async function checkReadiness(deps: HealthDeps, options: ReadinessOptions): Promise<ReadinessReport> {
  const database = await settle(() => deps.monitoring.ping(), options.timeoutMs);
  const databaseCheck: CheckResult = database.ok
    ? { status: 'ok' }
    : { status: 'failing', reason: `database unreachable: ${database.error}` };
  const [live, test, payouts] = await Promise.all([
    deps.chain ? checkChain(deps, deps.chain, database.ok, options) : undefined,
    deps.testChain ? checkChain(deps, deps.testChain, database.ok, options) : undefined,
    deps.payoutPolicy && database.ok ? checkPayouts(deps, deps.payoutPolicy, options) : undefined,
  ]);
  const skipped = { status: 'skipped', reason: 'no chain configured for this process' } as const;
  const checks = {
    database: databaseCheck,
    rpc: live?.rpc ?? skipped,
    watcher: live?.watcher ?? skipped,
    ...(test ? { test_rpc: test.rpc, test_watcher: test.watcher } : {}),
    ...(payouts ? { payouts } : {}),
  };
  const ready = [checks.database, checks.rpc, checks.watcher].every((check) => check.status !== 'failing');
  return { ready, checks };
}

async function checkPayouts(
  deps: HealthDeps,
  policy: PayoutPolicy,
  options: ReadinessOptions,
): Promise<CheckResult> {
  const now = deps.clock.now();
  const health = await settle(
    () => deps.monitoring.payoutHealth(policy, new Date(now.getTime() - policy.delayedAfterMs)),
    options.timeoutMs,
  );
  if (!health.ok) return { status: 'skipped', reason: `payouts unreadable: ${health.error}` };
  const { pending, delayed, oldestDelayedSince, failing } = health.value;
  if (delayed === 0) return { status: 'ok', details: { pending, delayed } };
  const reasons = [...new Set(failing.filter((f) => f.share === 'merchant').map((f) => f.reason))];
  return {
    status: 'failing',
    reason: `${delayed} payout(s) delayed, the oldest failing since ${oldestDelayedSince?.toISOString()}: ${reasons.join('; ')}`,
  };
}

async function checkChain(
  deps: HealthDeps,
  chain: ChainProbe,
  databaseOk: boolean,
  options: ReadinessOptions,
): Promise<{ rpc: CheckResult; watcher: CheckResult }> {
  const [head, cursor] = await Promise.all([
    settle(() => chain.reader.latestBlockNumber(), options.timeoutMs),
    databaseOk ? settle(() => deps.ledger.cursor(chain.chainId), options.timeoutMs) : undefined,
  ]);
  const rpc: CheckResult = head.ok
    ? { status: 'ok', details: { head_block: head.value.toString() } }
    : { status: 'failing', reason: `RPC unreachable: ${head.error}` };
  let watcher: CheckResult;
  if (!cursor) watcher = { status: 'skipped', reason: 'database unreachable' };
  else if (!cursor.ok) watcher = { status: 'failing', reason: `watcher cursor unreadable: ${cursor.error}` };
  else watcher = judgeWatcher(cursor.value, head.ok ? head.value : undefined, deps.clock.now(), options);
  return { rpc, watcher };
}

/** Blocks between the last block the watcher scanned and the head (the node's now, else the cursor's own). */
export function watcherLagBlocks(cursor: ChainCursor, head: bigint | undefined): bigint {
  const lag = (head ?? cursor.headBlock) - (cursor.nextBlock - 1n);
  return lag > 0n ? lag : 0n;
}

function judgeWatcher(
  cursor: ChainCursor | undefined,
  head: bigint | undefined,
  now: Date,
  options: ReadinessOptions,
): CheckResult {
  if (!cursor) return { status: 'failing', reason: 'chain watcher has not started (no cursor)' };
  const lagBlocks = watcherLagBlocks(cursor, head);
  const sinceAdvanceMs = Math.max(0, now.getTime() - cursor.updatedAt.getTime());
  const details = { lag_blocks: Number(lagBlocks), seconds_since_advance: Math.floor(sinceAdvanceMs / 1000) };
  if (lagBlocks > BigInt(options.maxLagBlocks)) {
    return {
      status: 'failing',
      reason: `chain watcher is ${lagBlocks} blocks behind (at most ${options.maxLagBlocks})`,
    };
  }
  if (lagBlocks > 0n && sinceAdvanceMs > options.maxStallMs) {
    return {
      status: 'failing',
      reason: `chain watcher stalled: ${lagBlocks} blocks behind and no progress for ${details.seconds_since_advance} s`,
    };
  }
  return { status: 'ok', details };
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: string };

/** Runs a probe with a time bound; a failure becomes a short message (never a stack or a connection string). */
export async function settle<T>(probe: () => Promise<T>, timeoutMs: number): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return { ok: true, value: await Promise.race([probe(), timeout]) };
  } catch (error) {
    return { ok: false, error: describeFailure(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** The error's class and code only: driver messages can carry host names, users and URLs with credentials. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  if (error.message.startsWith('no answer within')) return error.message;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[\w.-]{1,40}$/.test(code) ? `${error.name} ${code}` : error.name;
}
