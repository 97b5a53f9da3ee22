import { formatUsdc } from '../../domain/money.ts';
import type { SourceBridgeDeps, SourceBridgeOptions } from './options.ts';
import type { BridgeTransfer, PaymentForwarder } from './ports.ts';

/**
 * The fee a burn offers (`maxFee`), decided before every attempt from what the source chain asks at that moment
 * (docs/decisions/0035-cctp-minimum-fee.md). Since CCTP v2.1 a TokenMessengerV2 may refuse any burn, standard
 * ones too, whose `maxFee` is below its minimum (`getMinFeeAmount`): read on chain, never guessed, so a burn is
 * only sent with an offer the messenger accepts now. The offer never exceeds the cap: the operator's
 * (`PAYLINK_<CHAIN>_MAX_FEE_BPS`) and the one the payment's forwarder was deployed with (its factory's route),
 * whichever is lower. A minimum above the cap is not burnt at all: the transfer is held up, the payout reported
 * delayed with the fee named, and the burn tried again after its back-off, when a lowered minimum or a raised
 * cap may let it through.
 */
export type BurnFeeOffer =
  | { readonly kind: 'offer'; readonly maxFeeBaseUnits: bigint }
  | { readonly kind: 'held'; readonly reason: string };

export async function burnFeeOffer(
  deps: SourceBridgeDeps,
  options: SourceBridgeOptions,
  forwarder: PaymentForwarder,
  transfer: BridgeTransfer,
): Promise<BurnFeeOffer> {
  const amount = transfer.amountBaseUnits;
  let minimum: bigint;
  let capBps: number;
  try {
    const routeCapBps = await deps.source.burnFeeCapBps(forwarder.factoryAddress);
    capBps = Math.min(options.maxFeeBps, routeCapBps);
    minimum = await deps.source.minimumBurnFee(amount);
  } catch (error) {
    return { kind: 'held', reason: `CCTP's minimum fee could not be read: ${describe(error)}` };
  }
  const cap = capOf(amount, capBps);
  if (minimum > cap) {
    return {
      kind: 'held',
      reason:
        `CCTP's minimum fee for this burn is ${formatUsdc(minimum)} USDC (${bpsOf(minimum, amount)} bp of ` +
        `${formatUsdc(amount)} USDC), above the cap of ${formatUsdc(cap)} USDC (${capBps} bp): not burnt ` +
        'until the minimum falls or the cap rises',
    };
  }
  if (transfer.speed === 'standard') return { kind: 'offer', maxFeeBaseUnits: minimum };
  let fastFee: bigint;
  try {
    fastFee = await deps.attestations.fastMinimumFee(deps.source.domain, amount);
  } catch (error) {
    return { kind: 'held', reason: `Circle's fast transfer fee could not be read: ${describe(error)}` };
  }
  const wanted = fastFee > minimum ? fastFee : minimum;
  if (wanted > cap) {
    // A fast burn offering less than Circle's fast fee is not refused: CCTP completes it at standard speed.
    deps.logger.warn(
      { transferId: transfer.id, fastFee: fastFee.toString(), cap: cap.toString() },
      "Circle's fast fee is above the cap: this burn will complete at standard speed",
    );
    return { kind: 'offer', maxFeeBaseUnits: cap };
  }
  return { kind: 'offer', maxFeeBaseUnits: wanted };
}

/**
 * The most the quote let CCTP keep of `amount` on this chain: its network's `max_fee_bps` as the create response
 * states it (the cap for fast, 0 for standard: checkout's `paymentNetworks`).
 */
export function quotedMaxFee(options: SourceBridgeOptions, amount: bigint): bigint {
  return options.speed === 'fast' ? capOf(amount, options.maxFeeBps) : 0n;
}

/** floor(amount × bps / 10 000): the forwarder's own bound (PaymentForwarderV3.burn), to the base unit. */
function capOf(amount: bigint, bps: number): bigint {
  return (amount * BigInt(bps)) / 10_000n;
}

/** `part` in basis points of `whole`, rounded up to a thousandth (the precision of the messenger's `minFee`). */
function bpsOf(part: bigint, whole: bigint): string {
  const thousandths = (part * 10_000_000n + whole - 1n) / whole;
  const rest = (thousandths % 1_000n).toString().padStart(3, '0').replace(/0+$/, '');
  return rest === '' ? (thousandths / 1_000n).toString() : `${thousandths / 1_000n}.${rest}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
}
