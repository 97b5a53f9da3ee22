import type { PayoutFailureCause } from '../../domain/payout.ts';
import type {
  FlushCall,
  FlushItem,
  FlushOutcome,
  ForwarderVersion,
  Relayer,
  SettlementCandidate,
} from './ports.ts';

/** A candidate whose flush would move something; `held`: a share it would leave behind, and why. */
export interface MovableItem {
  readonly candidate: SettlementCandidate;
  readonly held: PayoutFailureCause | null;
}

/** A candidate whose flush would move nothing, or reverts even alone: why, per share held up. */
export interface StuckItem {
  readonly candidate: SettlementCandidate;
  readonly cause: PayoutFailureCause;
}

export interface ProbedBatch {
  /** In batch order. */
  readonly movable: readonly MovableItem[];
  readonly stuck: readonly StuckItem[];
}

/** Diagnoses run a few at a time: a paused token makes every item of a batch stuck at once. */
const DIAGNOSIS_CONCURRENCY = 8;

/**
 * What flushing `batch` (one factory, one token) would do now, found without spending gas, so that a batch never
 * waits on its worst member:
 * - version 1 reverts as a whole when any transfer fails, so the batch is estimated and, if it would revert,
 *   bisected (estimates cost nothing) to find the members that revert alone — at most about 2 × batch calls;
 * - version 2 never reverts for a refused transfer: one `eth_call` returns each forwarder's outcome. A member
 *   that would move nothing is stuck; one that would move a share and hold the other goes, its held share noted.
 * Why a share is held comes from the token itself: its `transfer` from the deposit address, simulated.
 */
export async function probeBatch(
  relayer: Relayer,
  version: ForwarderVersion,
  batch: readonly SettlementCandidate[],
): Promise<ProbedBatch> {
  const attempt = async (
    items: readonly SettlementCandidate[],
  ): Promise<{ ok: true; outcomes: readonly FlushOutcome[] | null } | { ok: false; reason: string }> => {
    const call = flushCall(version, items);
    if (version === 1) {
      const estimate = await relayer.estimateFlush(call);
      return estimate.ok ? { ok: true, outcomes: null } : estimate;
    }
    return relayer.simulateFlush(call);
  };

  const whole = await attempt(batch);
  let accepted: readonly SettlementCandidate[] = batch;
  let outcomes = whole.ok ? whole.outcomes : null;
  const stuck: StuckItem[] = [];
  if (!whole.ok) {
    const rejected = await findRejected(attempt, batch, whole.reason);
    stuck.push(...rejected);
    accepted = batch.filter((c) => !rejected.some((r) => r.candidate.paymentId === c.paymentId));
    if (accepted.length > 0) {
      const rest = await attempt(accepted);
      if (rest.ok) {
        outcomes = rest.outcomes;
      } else {
        // Each part passed alone but not together: no culprit to blame, so each waits its back-off.
        const reason = `reverts only together with other payments: ${rest.reason}`;
        stuck.push(...accepted.map((candidate) => ({ candidate, cause: bothShares(reason) })));
        accepted = [];
      }
    }
  }
  if (outcomes === null) return { movable: accepted.map((candidate) => ({ candidate, held: null })), stuck };

  const movable: MovableItem[] = [];
  const classified = await mapLimited(accepted, DIAGNOSIS_CONCURRENCY, async (candidate, i) => {
    const outcome = outcomes[i]!;
    const sent = outcome.merchantSent + outcome.feeSent;
    const owed = outcome.merchantOwed + outcome.feeOwed;
    if (sent === 0n && owed === 0n) {
      return {
        candidate,
        stuckCause: {
          merchant:
            'the deposit address holds nothing to flush (flushed by another account, or not final yet?)',
        },
      };
    }
    const cause = owed === 0n ? null : await diagnose(relayer, candidate, outcome);
    return sent === 0n ? { candidate, stuckCause: cause! } : { candidate, held: cause };
  });
  for (const item of classified) {
    if ('stuckCause' in item) stuck.push({ candidate: item.candidate, cause: item.stuckCause });
    else movable.push({ candidate: item.candidate, held: item.held });
  }
  return { movable, stuck };
}

/** The members of a batch known to revert that also revert alone, each with its own reason. */
async function findRejected(
  attempt: (items: readonly SettlementCandidate[]) => Promise<{ ok: true } | { ok: false; reason: string }>,
  batch: readonly SettlementCandidate[],
  reason: string,
): Promise<StuckItem[]> {
  if (batch.length === 1) return [{ candidate: batch[0]!, cause: bothShares(reason) }];
  const middle = Math.ceil(batch.length / 2);
  const rejected: StuckItem[] = [];
  for (const half of [batch.slice(0, middle), batch.slice(middle)]) {
    const result = await attempt(half);
    if (!result.ok) rejected.push(...(await findRejected(attempt, half, result.reason)));
  }
  return rejected;
}

/** A flush that reverts holds up both shares. */
function bothShares(reason: string): PayoutFailureCause {
  return { merchant: reason, commission: reason };
}

/** Why each share a flush would hold back is refused, in the token's words. */
async function diagnose(
  relayer: Relayer,
  candidate: SettlementCandidate,
  outcome: FlushOutcome,
): Promise<PayoutFailureCause> {
  const why = async (to: string, amount: bigint) =>
    (await relayer.transferRefusal(candidate.tokenAddress, candidate.depositAddress, to, amount)) ??
    'the transfer failed inside the forwarder, though the token accepts it now (retried)';
  return {
    merchant:
      outcome.merchantOwed > 0n ? await why(candidate.merchantAddress, outcome.merchantOwed) : undefined,
    commission: outcome.feeOwed > 0n ? await why(candidate.treasuryAddress, outcome.feeOwed) : undefined,
  };
}

export function flushCall(version: ForwarderVersion, batch: readonly SettlementCandidate[]): FlushCall {
  const first = batch[0];
  if (!first) throw new RangeError('empty flush batch');
  return {
    factoryAddress: first.factoryAddress,
    version,
    tokenAddress: first.tokenAddress,
    items: batch.map(flushItemOf),
  };
}

/** The params a candidate's deposit address commits to, as a flush passes them. */
export function flushItemOf(c: SettlementCandidate): FlushItem {
  return {
    paymentId: c.paymentId,
    merchantAddress: c.merchantAddress,
    treasuryAddress: c.treasuryAddress,
    commissionBps: c.commissionBps,
  };
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}
