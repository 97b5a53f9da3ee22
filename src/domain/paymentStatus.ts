/**
 * A payment's status is a pure function of its quote, the transfers seen to its deposit address and the clock.
 * Nothing edits a status; every writer recomputes it with `derivePaymentState` and stores the result together
 * with the events for the change (docs/architecture.md has the table, docs/decisions/0003-derived-status.md
 * the choices).
 */
export const PAYMENT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'expired'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * A change of status owes its event (`payment.pending` only ever follows a reorg: a payment starts pending and
 * its creation is answered, not announced); so does the payout, once sent and when delayed (domain/payout.ts);
 * and a token that does not pay, sent to the payment (the customer believes they paid).
 */
export const PAYMENT_EVENT_TYPES = [
  'payment.processing',
  'payment.pending',
  'payment.paid',
  'payment.failed',
  'payment.expired',
  'payment.payout_sent',
  'payment.payout_delayed',
  'payment.unaccepted_transfer',
  // A refund's events are on its payment's timeline (domain/refund.ts).
  'refund.created',
  'refund.address_provided',
  'refund.funded',
  'refund.refunded',
  'refund.canceled',
  'refund.expired',
  // A subscription's events are on the timeline of the payment of the period they are about (decision 0060).
  'subscription.created',
  'subscription.activated',
  'subscription.renewed',
  'subscription.payment_failed',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.ended',
] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/** A transfer of the payment's token into its deposit address, as the chain watcher recorded it. */
export interface ObservedTransfer {
  /** The chain it was seen on; transfers of several chains are ordered by block time first. */
  readonly chainId?: number;
  readonly amountBaseUnits: bigint;
  readonly blockNumber: bigint;
  readonly logIndex: number;
  readonly blockTimestamp: Date;
  readonly final: boolean;
  /** Removed from the canonical chain by a reorg; never counts, unless a final mint carried it home. */
  readonly orphaned: boolean;
  /** Its transaction: the same transaction found again in another block after a reorg is the same transfer. */
  readonly txHash?: string;
  /**
   * A fast burn carries its money home (decision 0037): `under-way` from the burn on, `minted` once the mint is
   * final on the home chain, when it counts as final whatever the source chain does next (Circle honours it).
   */
  readonly carriedHome?: 'under-way' | 'minted' | undefined;
}

export interface PaymentTerms {
  readonly requiredBaseUnits: bigint;
  readonly underpaymentToleranceBps: number;
  readonly expiresAt: Date;
}

export interface PaymentState<T extends ObservedTransfer = ObservedTransfer> {
  readonly status: PaymentStatus;
  /** Sum of final transfers. */
  readonly amountReceivedBaseUnits: bigint;
  /** Sum of all transfers not orphaned, final or not. */
  readonly amountSeenBaseUnits: bigint;
  /** Timestamp of the block whose transfer completed the payment; only when paid. */
  readonly paidAt: Date | null;
  /** Paid, but by a block after expiry. */
  readonly late: boolean;
  /** The transfer that completed the payment, when paid. */
  readonly completedBy: T | null;
  /** The latest transfer counted (final or not), if any. */
  readonly lastSeen: T | null;
}

/** What the final transfers must add up to for the payment to be paid: the price less the merchant's tolerance. */
export function paidThresholdBaseUnits(terms: PaymentTerms): bigint {
  const tolerance = (terms.requiredBaseUnits * BigInt(terms.underpaymentToleranceBps)) / 10_000n;
  return terms.requiredBaseUnits - tolerance;
}

/**
 * The transfers that count towards a payment, in the order they arrived: on the canonical chain (not orphaned),
 * of a positive amount. Ordered by block time, then chain, block and log: on one chain that is block order
 * (block times never go back); across chains, the time is the only order there is, and the chain id breaks ties
 * so the order (and with it which transfer completed the payment) never depends on how rows were read.
 */
export function countedTransfers<T extends ObservedTransfer>(transfers: readonly T[]): T[] {
  return carriedAsCredited(transfers)
    .filter((t) => !t.orphaned && t.amountBaseUnits > 0n)
    .sort(
      (a, b) =>
        a.blockTimestamp.getTime() - b.blockTimestamp.getTime() ||
        (a.chainId ?? 0) - (b.chainId ?? 0) ||
        (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1),
    );
}

/**
 * The transfers as they count once fast burns carry some home (decision 0037): one whose mint is final on the home
 * chain is final and stays on the chain for its payment (a reorg of the source chain after Circle attested is
 * Circle's loss, not the merchant's); and while a carried transfer counts, the same transaction found again in
 * another block (a reorg replayed it) is that transfer, not a second one.
 */
function carriedAsCredited<T extends ObservedTransfer>(transfers: readonly T[]): T[] {
  const minted = (t: T) => t.carriedHome === 'minted';
  const key = (t: T) => `${t.chainId ?? 0}:${t.txHash?.toLowerCase()}`;
  const carriedCounting = new Set(
    transfers
      .filter((t) => t.txHash !== undefined && t.carriedHome !== undefined && (!t.orphaned || minted(t)))
      .map(key),
  );
  return transfers.map((t) => {
    if (minted(t)) return { ...t, final: true, orphaned: false };
    if (t.carriedHome === undefined && t.txHash !== undefined && carriedCounting.has(key(t)))
      return { ...t, orphaned: true };
    return t;
  });
}

export function derivePaymentState<T extends ObservedTransfer>(
  terms: PaymentTerms,
  transfers: readonly T[],
  now: Date,
): PaymentState<T> {
  if (terms.requiredBaseUnits <= 0n) throw new RangeError('a payment requires a positive amount');
  const counted = countedTransfers(transfers);
  const threshold = paidThresholdBaseUnits(terms);

  let received = 0n;
  let seen = 0n;
  let completedBy: T | null = null;
  let lastSeen: T | null = null;
  for (const transfer of counted) {
    seen += transfer.amountBaseUnits;
    lastSeen = transfer;
    if (!transfer.final) continue;
    received += transfer.amountBaseUnits;
    if (completedBy === null && received >= threshold) completedBy = transfer;
  }

  if (completedBy !== null) {
    const paidAt = completedBy.blockTimestamp;
    return {
      status: 'paid',
      amountReceivedBaseUnits: received,
      amountSeenBaseUnits: seen,
      paidAt,
      late: paidAt.getTime() > terms.expiresAt.getTime(),
      completedBy,
      lastSeen,
    };
  }
  const pastExpiry = now.getTime() > terms.expiresAt.getTime();
  const awaitingFinality = seen > received;
  let status: PaymentStatus;
  if (!pastExpiry || awaitingFinality) {
    // Before expiry, or after it while a transfer still awaits finality (it may yet complete the payment).
    status = seen > 0n ? 'processing' : 'pending';
  } else {
    status = received > 0n ? 'failed' : 'expired';
  }
  return {
    status,
    amountReceivedBaseUnits: received,
    amountSeenBaseUnits: seen,
    paidAt: null,
    late: false,
    completedBy: null,
    lastSeen,
  };
}

/**
 * The last moment `derivePaymentState` gives `state` again without a new transfer, or null for ever after: the
 * clock only matters while an unpaid link has not yet expired.
 */
export function stateHoldsUntil(terms: PaymentTerms, state: PaymentState, now: Date): Date | null {
  if (state.status === 'paid' || now.getTime() > terms.expiresAt.getTime()) return null;
  return terms.expiresAt;
}

/**
 * The event a change of status owes the merchant, if any: one per change the merchant would see. `announced` is
 * the status of the last event sent (`pending` before any). A return to `pending` (the transfers seen were
 * reorged away) owes `payment.pending`: after `payment.processing` the merchant must not be left waiting for a
 * payment that is no longer on the chain.
 */
export function eventForTransition(announced: PaymentStatus, next: PaymentStatus): PaymentEventType | null {
  if (announced === next) return null;
  return `payment.${next}`;
}
