import { runLoop } from '../operations/jobLoop.ts';
import type { Wakeup } from '../operations/wakeup.ts';
import type { SettleOptions, SettlePaymentsDeps } from '../settlement/options.ts';
import { type SettleResult, settleOnce, settlerPassOutcome } from '../settlement/settleOnce.ts';
import { type MintOutcome, mintOnce } from './mintStep.ts';
import type { HomeBridgeDeps } from './options.ts';

export interface SettleAndMintResult {
  /** Null if the settler did not give the mint its turn. */
  readonly mint: MintOutcome | null;
  /** Its `send` is null while a mint of ours is unmined: no settlement is sent then. */
  readonly settle: SettleResult;
}

/**
 * The home settler's pass with the bridge's mints. Both send with the one home relayer, so they take turns on
 * its nonces: the settlement in flight is moved on first, then the mint step goes, even behind a settlement
 * still unmined (at the next nonce: a mint is what a customer waits for), and a settlement is sent only when no
 * mint of ours is unmined; money minted now is flushed in the same pass. At most one transaction of each is
 * unmined at a time. The mint goes before every new settlement, not only when the settler happens to be idle:
 * with a settlement sent every pass (a steady stream of payments paid on the home chain), a mint that waited for
 * an idle pass would wait for the stream to stop, and a fast transfer would be paid no sooner than a standard
 * one (bench/fastPaid.ts).
 */
export async function settleAndMintOnce(
  settle: SettlePaymentsDeps,
  mint: HomeBridgeDeps,
  options: SettleOptions,
): Promise<SettleAndMintResult> {
  let minted: MintOutcome | null = null;
  const settled = await settleOnce(settle, options, async () => {
    minted = await mintOnce(mint, {
      highestSettlementNonce: await settle.settlements.highestNonce(options.chainId),
    });
    return minted.kind !== 'in-flight';
  });
  return { mint: minted, settle: settled };
}

export interface RunSettlerWithMintsOptions extends SettleOptions {
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  readonly maxBackoffMs?: number;
  /** Raised by the source chains' bridge jobs when an attestation is recorded: a mint is due now. */
  readonly wakeup?: Wakeup | undefined;
}

/**
 * `runSettler` with the mint step: the home chain's settler once source chains burn to it. A mint in flight is
 * looked at again within a quarter interval (`soon`): it is mined in the next block, and the customer's payment
 * is paid only once it is recorded.
 */
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
      wakeup: options.wakeup,
    },
    async () => {
      const result = await settleAndMintOnce(settle, mint, options);
      // A mint just recorded is flushed at once; one in flight is looked at again within the block, as is a
      // settlement in flight (a due mint waits for it).
      const kind = result.mint?.kind;
      if (kind === 'minted') return 'busy';
      return kind === 'in-flight' ? 'soon' : settlerPassOutcome(result.settle);
    },
  );
}
