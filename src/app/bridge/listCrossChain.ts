import { formatUsdc } from '../../domain/money.ts';
import type { BridgeStore } from './ports.ts';

/** A cross-chain transfer not done yet, as operators see it (`paylink settlements cross-chain`). */
export interface CrossChainView {
  readonly transfer_id: string;
  readonly payment_id: string;
  readonly source_chain_id: number;
  readonly home_chain_id: number;
  /** The step it waits in: burn, attest or mint. */
  readonly step: string;
  readonly amount: string;
  readonly speed: string;
  /** The most CCTP may keep, bound before the burn. */
  readonly max_fee: string;
  readonly burn_tx_hash: string | null;
  readonly mint_tx_hash: string | null;
  readonly attempts: number;
  readonly next_attempt_at: string | null;
  readonly stalled_since: string | null;
  readonly last_error: string | null;
  /** Its attested message expired before the mint (back in `attest`): since when, and when Circle was asked. */
  readonly expired_at: string | null;
  readonly reattest_requested_at: string | null;
}

const MAX_LIST = 500;

/** Cross-chain transfers still moving, oldest first, with their step and why they wait. */
export async function listCrossChain(
  deps: { readonly bridge: Pick<BridgeStore, 'listOpen'> },
  limit: number,
): Promise<CrossChainView[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
    throw new RangeError(`limit must be 1..${MAX_LIST}`);
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return (await deps.bridge.listOpen(limit)).map((t) => ({
    transfer_id: t.id,
    payment_id: t.paymentId,
    source_chain_id: t.sourceChainId,
    home_chain_id: t.homeChainId,
    step: t.step,
    amount: formatUsdc(t.amountBaseUnits),
    speed: t.speed,
    max_fee: formatUsdc(t.maxFeeBaseUnits),
    burn_tx_hash: t.burnTxHash,
    mint_tx_hash: t.mintTxHash,
    attempts: t.attempts,
    next_attempt_at: iso(t.nextAttemptAt),
    stalled_since: iso(t.stalledSince),
    last_error: t.lastError,
    expired_at: iso(t.expiredAt),
    reattest_requested_at: iso(t.reattestRequestedAt),
  }));
}
