import { runLoop } from '../operations/jobLoop.ts';
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

export interface RunSettlerWithMintsOptions extends SettleOptions {
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  readonly maxBackoffMs?: number;
}

/** `runSettler` with the mint step: the home chain's settler once source chains burn to it. */
export function runSettlerWithMints(
  settle: SettlePaymentsDeps,
  mint: HomeBridgeDeps,
  options: RunSettlerWithMintsOptions,
): Promise<void> {
  return runLoop(
    {
      name: 'settler',
      intervalMs: options.intervalMs,
      signal: options.signal,
      logger: settle.logger,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
    },
    async () => {
      const result = await settleAndMintOnce(settle, mint, options);
      // A mint just recorded is flushed at once; one in flight is looked at again next interval.
      return result.mint?.kind === 'minted' ? 'busy' : 'idle';
    },
  );
}
