import { type MintOutcome, mintOnce } from '../bridge/mintStep.ts';
import type { HomeBridgeDeps } from '../bridge/options.ts';
import type { SettleOptions, SettlePaymentsDeps } from './options.ts';
import { type RunSettlerOptions, runSettlerLoop, type SettleResult, settleOnce } from './settleOnce.ts';

export interface SettleWithMintsResult {
  /** Null while a settlement is in flight: no mint starts then. */
  readonly mint: MintOutcome | null;
  /** Its `send` is null while a mint of ours is unmined: no settlement is sent then. */
  readonly settle: SettleResult;
}

/**
 * The home settler's pass with the bridge's mints. Both send with the one home relayer, so they take turns on
 * its nonces: the settlement in flight is moved on first; once none is, the mint step goes (money minted now is
 * flushed in the same pass), and a settlement is sent only when no mint of ours is unmined. The mint goes
 * before every new settlement, not only when the settler happens to be idle: with a settlement sent every pass
 * (a steady stream of payments paid on the home chain), a mint that waited for an idle pass would wait for the
 * stream to stop, and a fast transfer would be paid no sooner than a standard one (bench/fastPaid.ts).
 */
export async function settleWithMintsOnce(
  settle: SettlePaymentsDeps,
  mint: HomeBridgeDeps,
  options: SettleOptions,
): Promise<SettleWithMintsResult> {
  let minted: MintOutcome | null = null;
  const settled = await settleOnce(settle, options, async () => {
    minted = await mintOnce(mint, {
      highestSettlementNonce: await settle.settlements.highestNonce(options.chainId),
    });
    return minted.kind !== 'in-flight';
  });
  return { mint: minted, settle: settled };
}

/** `runSettler` with the mint step: the home chain's settler once source chains burn to it. */
export function runSettlerWithMints(
  settle: SettlePaymentsDeps,
  mint: HomeBridgeDeps,
  options: RunSettlerOptions,
): Promise<void> {
  return runSettlerLoop(settle, options, async () => {
    const result = await settleWithMintsOnce(settle, mint, options);
    // A mint just recorded is flushed at once; one in flight is looked at again next interval.
    return result.mint?.kind === 'minted' ? 'busy' : 'idle';
  });
}
