import type { SettleOptions, SettlePaymentsDeps } from '../settlement/options.ts';
import { type SettleResult, settleOnce } from '../settlement/settleOnce.ts';
import { type MintOutcome, mintOnce } from './mintStep.ts';
import type { HomeBridgeDeps } from './options.ts';

export interface SettleAndMintResult {
  /** Null while a settlement is in flight: no mint starts then. */
  readonly mint: MintOutcome | null;
  /** Null while a mint of ours is unmined: no settlement is sent then. */
  readonly settle: SettleResult | null;
}

/**
 * The home settler's pass with the bridge's mints: the mint step first (money minted now is flushed in the same
 * pass), then the settlement pass. Both send with the one home relayer, so they take turns on its nonces: a mint
 * starts only when no settlement is in flight, and a settlement only when no mint of ours is unmined.
 */
export async function settleAndMintOnce(
  settle: SettlePaymentsDeps,
  mint: HomeBridgeDeps,
  options: SettleOptions,
): Promise<SettleAndMintResult> {
  let minted: MintOutcome | null = null;
  if (!(await settle.settlements.inFlight(options.chainId))) {
    minted = await mintOnce(mint, {
      highestSettlementNonce: await settle.settlements.highestNonce(options.chainId),
    });
    if (minted.kind === 'in-flight') return { mint: minted, settle: null };
  }
  return { mint: minted, settle: await settleOnce(settle, options) };
}
