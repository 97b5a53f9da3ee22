import { type MintOutcome, mintOnce } from '../bridge/mintStep.ts';
import type { HomeBridgeDeps } from '../bridge/options.ts';
import type { SettleOptions, SettlePaymentsDeps } from './options.ts';
import {
  type RunSettlerOptions,
  runSettlerLoop,
  type SettleResult,
  settleOnce,
  settlerPassOutcome,
} from './settleOnce.ts';

export interface SettleWithMintsResult {
  /** The mint step's outcome: `settleOnce` gives it its turn on every pass. */
  readonly mint: MintOutcome;
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
export async function settleWithMintsOnce(
  settle: SettlePaymentsDeps,
  mint: HomeBridgeDeps,
  options: SettleOptions,
): Promise<SettleWithMintsResult> {
  const turn: { minted?: MintOutcome } = {};
  const settled = await settleOnce(settle, options, async () => {
    turn.minted = await mintOnce(mint, {
      highestSettlementNonce: await settle.settlements.highestNonce(options.chainId),
    });
    return turn.minted.kind !== 'in-flight';
  });
  // settleOnce gives the other sender its turn on every pass it completes (a failed turn fails the pass).
  if (turn.minted === undefined) throw new Error('the settler pass ended without giving the mint its turn');
  return { mint: turn.minted, settle: settled };
}

/**
 * `runSettler` with the mint step: the home chain's settler once source chains burn to it. A mint in flight is
 * looked at again within a quarter interval (`soon`): it is mined in the next block, and the customer's payment
 * is paid only once it is recorded.
 */
export function runSettlerWithMints(
  settle: SettlePaymentsDeps,
  mint: HomeBridgeDeps,
  options: RunSettlerOptions,
): Promise<void> {
  return runSettlerLoop(settle, options, async () => {
    const result = await settleWithMintsOnce(settle, mint, options);
    // A mint just recorded is flushed at once; one in flight is looked at again within the block (its receipt
    // makes the payment paid), as is a settlement in flight (the next flush waits for it).
    const { kind } = result.mint;
    if (kind === 'minted') return 'busy';
    return kind === 'in-flight' ? 'soon' : settlerPassOutcome(result.settle);
  });
}
