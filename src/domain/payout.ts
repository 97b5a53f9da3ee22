/**
 * The payout of a payment: what its deposit address sent on to the merchant and the treasury, and whether the
 * merchant's share is still on its way, delayed, or sent. Like the payment status, the payout status is derived
 * (from what the settler recorded and the clock), never edited (docs/decisions/0011-payouts-that-never-stall.md).
 */
import { commissionOf } from './money.ts';
import type { PaymentStatus } from './paymentStatus.ts';

/**
 * `not_due` before the payment is settled (nothing final to pay out yet), then `pending`, `sent` or `delayed`.
 * A payment that expired with nothing received has no payout status at all (null; absent from the API).
 */
export const PAYOUT_STATUSES = ['not_due', 'pending', 'sent', 'delayed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** What the settler recorded of a payment's payout. */
export interface PayoutProgress {
  /** The merchant's share sent out of the deposit address so far. */
  readonly merchantPaidBaseUnits: bigint;
  /** The commission sent to the treasury so far. */
  readonly treasuryPaidBaseUnits: bigint;
  /**
   * What CCTP took of the payment's transfers from source chains to the home chain (a fast transfer's fee,
   * decision 0034): received but never to be paid out. Written by the bridge when a mint is recorded.
   */
  readonly bridgeFeeBaseUnits: bigint;
  /**
   * The most CCTP may still keep of the payment's burns not minted yet (their bound, `max_fee`): not settled,
   * but never promised to the merchant. Written by the bridge at the burn, released at the mint.
   */
  readonly bridgeFeeBoundBaseUnits: bigint;
  /**
   * The most the quote let CCTP keep of what was burnt (each network's `max_fee_bps` of the amount burnt there),
   * and how many burns had to let it keep more: the minimum fee in force at the burn was above what the quote
   * stated (decision 0035). Written by the bridge at the burn.
   */
  readonly bridgeFeeQuotedBaseUnits: bigint;
  readonly bridgeBurnsAboveQuote: number;
  /** The latest settlement transaction that sent the merchant something. */
  readonly txHash: string | null;
  readonly sentAt: Date | null;
  /** Flush attempts that failed in a row: the back-off grows with them; 0 once everything went out. */
  readonly failures: number;
  /** Not tried again before this (back-off); null: as soon as it is due. */
  readonly retryAt: Date | null;
  /** Since when the merchant's share has failed to go out (null: it has not failed), and the last reason why. */
  readonly blockedSince: Date | null;
  readonly blockedReason: string | null;
  /** The same for the treasury's commission alone (the merchant is paid regardless: forwarder version 2). */
  readonly commissionBlockedSince: Date | null;
  readonly commissionBlockedReason: string | null;
  /** When `payment.payout_delayed` was written for the current delay; null when none is owed or sent yet. */
  readonly delayNotifiedAt: Date | null;
}

export const NO_PAYOUT_YET: PayoutProgress = Object.freeze({
  merchantPaidBaseUnits: 0n,
  treasuryPaidBaseUnits: 0n,
  bridgeFeeBaseUnits: 0n,
  bridgeFeeBoundBaseUnits: 0n,
  bridgeFeeQuotedBaseUnits: 0n,
  bridgeBurnsAboveQuote: 0,
  txHash: null,
  sentAt: null,
  failures: 0,
  retryAt: null,
  blockedSince: null,
  blockedReason: null,
  commissionBlockedSince: null,
  commissionBlockedReason: null,
  delayNotifiedAt: null,
});

/**
 * What of the received money is settled: sent out to both recipients, or taken by CCTP on its way to the home
 * chain. Received − settled is what may still be paid out.
 */
export function settledBaseUnits(payout: PayoutProgress): bigint {
  return payout.merchantPaidBaseUnits + payout.treasuryPaidBaseUnits + payout.bridgeFeeBaseUnits;
}

/** What can ever be paid out of what was received: the CCTP fees are taken before the flush (decision 0034). */
export function payableBaseUnits(receivedBaseUnits: bigint, payout: PayoutProgress): bigint {
  return receivedBaseUnits - payout.bridgeFeeBaseUnits;
}

/** Deployment settings the payout status depends on. */
export interface PayoutPolicy {
  /** Final funds below this wait for more before being flushed (`PAYLINK_DUST_THRESHOLD`). */
  readonly dustThresholdBaseUnits: bigint;
  /** A merchant payout failing for this long is `delayed` and owes `payment.payout_delayed` (`PAYLINK_PAYOUT_DELAYED_AFTER`). */
  readonly delayedAfterMs: number;
}

/** The defaults of `PAYLINK_DUST_THRESHOLD` (0.01 USDC) and `PAYLINK_PAYOUT_DELAYED_AFTER` (10 minutes). */
export const DEFAULT_PAYOUT_POLICY: PayoutPolicy = Object.freeze({
  dustThresholdBaseUnits: 10_000n,
  delayedAfterMs: 10 * 60_000,
});

export interface PayoutState {
  /** Null for a payment that expired with nothing received: there is nothing to pay out. */
  readonly status: PayoutStatus | null;
  /** Why the merchant's share has not gone out, while `delayed`. */
  readonly delayedReason: string | null;
  /** The merchant's share of what was received, not sent yet (never negative). */
  readonly merchantOwedBaseUnits: bigint;
}

/**
 * The payout status now:
 * - null for a payment that expired with nothing received (a late transfer makes it `processing` again);
 * - `not_due` while the payment is `pending` or `processing`: only a paid or failed payment's final funds are
 *   paid out, so there is no payout yet, not even one waiting;
 * - `sent` once the merchant's share of everything received went out, less the CCTP fees taken (an amount below
 *   the dust threshold may still wait for more; a commission the treasury could not take does not hold the
 *   merchant's payout);
 * - `delayed` when the merchant's share has failed to go out for `delayedAfterMs`, with the reason;
 * - `pending` otherwise (due, on its way).
 */
export function derivePayoutState(
  payment: {
    readonly status: PaymentStatus;
    readonly amountReceivedBaseUnits: bigint;
    readonly commissionBps: number;
    readonly payout: PayoutProgress;
  },
  policy: PayoutPolicy,
  now: Date,
): PayoutState {
  const { payout } = payment;
  const received = payment.amountReceivedBaseUnits;
  // Shares are computed on what arrives on the home chain: the CCTP fee comes out of the whole (decision 0029).
  const payable = payableBaseUnits(received, payout);
  const merchantDue = payable - commissionOf(payable, payment.commissionBps);
  const owed = merchantDue > payout.merchantPaidBaseUnits ? merchantDue - payout.merchantPaidBaseUnits : 0n;
  if (payment.status === 'expired') return { status: null, delayedReason: null, merchantOwedBaseUnits: 0n };
  // The settler forwards only paid and failed payments; a payout already under way is reported as it is.
  const unsettled = payment.status === 'pending' || payment.status === 'processing';
  if (unsettled && payout.merchantPaidBaseUnits === 0n && payout.blockedSince === null)
    return { status: 'not_due', delayedReason: null, merchantOwedBaseUnits: owed };
  if (
    owed > 0n &&
    payout.blockedSince !== null &&
    now.getTime() - payout.blockedSince.getTime() >= policy.delayedAfterMs
  ) {
    return { status: 'delayed', delayedReason: payout.blockedReason, merchantOwedBaseUnits: owed };
  }
  const settlesNothingMore = received - settledBaseUnits(payout) < policy.dustThresholdBaseUnits;
  const sent = payout.merchantPaidBaseUnits > 0n && (owed === 0n || settlesNothingMore);
  return { status: sent ? 'sent' : 'pending', delayedReason: null, merchantOwedBaseUnits: owed };
}

/**
 * When the payout state derived now would change with the clock alone: the moment a failing payout becomes
 * `delayed`. Null when the clock cannot change it (not failing, or delayed already).
 */
export function payoutStateHoldsUntil(payout: PayoutProgress, policy: PayoutPolicy, now: Date): Date | null {
  if (payout.blockedSince === null) return null;
  const delayedAt = new Date(payout.blockedSince.getTime() + policy.delayedAfterMs);
  return delayedAt.getTime() > now.getTime() ? delayedAt : null;
}

/** The first retry comes this long after a failed flush; each further failure doubles it… */
const SETTLEMENT_RETRY_FIRST_MS = 10_000;
/** …up to this: a payout that keeps failing is still tried every hour, for as long as it takes. */
export const SETTLEMENT_RETRY_MAX_MS = 60 * 60_000;

/** The wait before the next attempt after `failures` failed attempts in a row (1, 2, …): 10 s doubling to 1 h. */
export function settlementRetryDelayMs(failures: number): number {
  if (!Number.isInteger(failures) || failures < 1)
    throw new RangeError(`failures must be ≥ 1, got ${failures}`);
  // 2^19 × 10 s is far past the cap: the exponent is bounded before it can overflow.
  const delay = SETTLEMENT_RETRY_FIRST_MS * 2 ** Math.min(failures - 1, 20);
  return Math.min(delay, SETTLEMENT_RETRY_MAX_MS);
}

/** Why a flush attempt could not send a share, per share that failed (at least one). */
export interface PayoutFailureCause {
  readonly merchant?: string | undefined;
  readonly commission?: string | undefined;
}

/**
 * The progress after a flush attempt that failed to send a share: one more failure, the next try after the
 * back-off, and since when (kept from the first failure) and why each failing share is held up.
 */
export function payoutAfterFailure(
  payout: PayoutProgress,
  cause: PayoutFailureCause,
  at: Date,
): PayoutProgress {
  if (cause.merchant === undefined && cause.commission === undefined)
    throw new RangeError('a payout failure names the share that failed');
  const failures = payout.failures + 1;
  return {
    ...payout,
    failures,
    retryAt: new Date(at.getTime() + settlementRetryDelayMs(failures)),
    ...(cause.merchant === undefined
      ? {}
      : { blockedSince: payout.blockedSince ?? at, blockedReason: cause.merchant }),
    ...(cause.commission === undefined
      ? {}
      : {
          commissionBlockedSince: payout.commissionBlockedSince ?? at,
          commissionBlockedReason: cause.commission,
        }),
  };
}

/**
 * The progress after a mined flush that sent something. A share still held in the forwarder keeps its failure
 * (and the back-off set when it failed); a share with nothing owed any more is cleared, and once nothing is held
 * the failures are over. The merchant told of a delay is told again only for a new one.
 */
export function payoutAfterFlush(
  payout: PayoutProgress,
  flush: {
    readonly merchantSentBaseUnits: bigint;
    readonly feeSentBaseUnits: bigint;
    readonly merchantOwedBaseUnits: bigint;
    readonly feeOwedBaseUnits: bigint;
    readonly txHash: string;
    readonly at: Date;
  },
): PayoutProgress {
  for (const amount of [
    flush.merchantSentBaseUnits,
    flush.feeSentBaseUnits,
    flush.merchantOwedBaseUnits,
    flush.feeOwedBaseUnits,
  ]) {
    if (amount < 0n) throw new RangeError('a flush moves no negative amount');
  }
  if (flush.merchantSentBaseUnits + flush.feeSentBaseUnits === 0n)
    throw new RangeError('a flush that sent nothing is a failure (payoutAfterFailure)');
  const merchantHeld = flush.merchantOwedBaseUnits > 0n;
  const commissionHeld = flush.feeOwedBaseUnits > 0n;
  const sentToMerchant = flush.merchantSentBaseUnits > 0n;
  return {
    merchantPaidBaseUnits: payout.merchantPaidBaseUnits + flush.merchantSentBaseUnits,
    treasuryPaidBaseUnits: payout.treasuryPaidBaseUnits + flush.feeSentBaseUnits,
    bridgeFeeBaseUnits: payout.bridgeFeeBaseUnits,
    bridgeFeeBoundBaseUnits: payout.bridgeFeeBoundBaseUnits,
    bridgeFeeQuotedBaseUnits: payout.bridgeFeeQuotedBaseUnits,
    bridgeBurnsAboveQuote: payout.bridgeBurnsAboveQuote,
    txHash: sentToMerchant ? flush.txHash : payout.txHash,
    sentAt: sentToMerchant ? flush.at : payout.sentAt,
    failures: merchantHeld || commissionHeld ? payout.failures : 0,
    retryAt: merchantHeld || commissionHeld ? payout.retryAt : null,
    blockedSince: merchantHeld ? payout.blockedSince : null,
    blockedReason: merchantHeld ? payout.blockedReason : null,
    commissionBlockedSince: commissionHeld ? payout.commissionBlockedSince : null,
    commissionBlockedReason: commissionHeld ? payout.commissionBlockedReason : null,
    delayNotifiedAt: merchantHeld ? payout.delayNotifiedAt : null,
  };
}
