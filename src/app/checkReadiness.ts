import type { ChainCursor, ChainReader, Clock, Ledger, MonitoringStore } from './ports.ts';

/** What /readyz and /metrics read: the database, the chain node and the watcher's cursor. */
export interface HealthDeps {
  readonly monitoring: Pick<MonitoringStore, 'ping'>;
  readonly ledger: Pick<Ledger, 'cursor'>;
  readonly clock: Clock;
  /** The chain this deployment watches; absent: the RPC and the watcher are not checked. */
  readonly chain?:
    | {
        readonly chainId: number;
        readonly reader: Pick<ChainReader, 'latestBlockNumber' | 'finalizedBlockNumber' | 'blockAt'>;
      }
    | undefined;
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
  };
}

/**
 * Whether this API process should take traffic: the database answers, the chain node answers, and the chain
 * watcher (in whichever process runs it) keeps up — its cursor in the database is close to the node's head,
 * or, if behind, advanced recently. A watcher that is caught up is fine however long ago it last wrote: on a
 * quiet chain (the sandbox mines on demand) there is nothing to write.
 */
export async function checkReadiness(deps: HealthDeps, options: ReadinessOptions): Promise<ReadinessReport> {
  const [database, head] = await Promise.all([
    settle(() => deps.monitoring.ping(), options.timeoutMs),
    deps.chain ? settle(() => deps.chain!.reader.latestBlockNumber(), options.timeoutMs) : undefined,
  ]);
  const databaseCheck: CheckResult = database.ok
    ? { status: 'ok' }
    : { status: 'failing', reason: `database unreachable: ${database.error}` };

  if (!deps.chain || head === undefined) {
    const skipped = { status: 'skipped', reason: 'no chain configured for this process' } as const;
    return { ready: database.ok, checks: { database: databaseCheck, rpc: skipped, watcher: skipped } };
  }
  const rpcCheck: CheckResult = head.ok
    ? { status: 'ok', details: { head_block: head.value.toString() } }
    : { status: 'failing', reason: `RPC unreachable: ${head.error}` };

  let watcherCheck: CheckResult;
  if (!database.ok) {
    watcherCheck = { status: 'skipped', reason: 'database unreachable' };
  } else {
    const cursor = await settle(() => deps.ledger.cursor(deps.chain!.chainId), options.timeoutMs);
    watcherCheck = cursor.ok
      ? judgeWatcher(cursor.value, head.ok ? head.value : undefined, deps.clock.now(), options)
      : { status: 'failing', reason: `watcher cursor unreadable: ${cursor.error}` };
  }
  const ready = [databaseCheck, rpcCheck, watcherCheck].every((check) => check.status !== 'failing');
  return { ready, checks: { database: databaseCheck, rpc: rpcCheck, watcher: watcherCheck } };
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
