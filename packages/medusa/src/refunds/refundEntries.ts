import type { PaylinkSdk } from '../providers/paylink/sdk';

type Refund = Awaited<ReturnType<InstanceType<PaylinkSdk['PaylinkClient']>['getRefund']>>;

/** One Paylink refund as kept in a Medusa payment's `data.refunds`, for the admin to read. */
export interface RefundEntry {
  readonly refund_id: string;
  readonly status: Refund['status'];
  /** USDC the customer is sent. */
  readonly amount: string;
  readonly requested_amount: string;
  readonly requested_currency: string;
  /** The page where the customer gives an address; kept after they did, for the record. */
  readonly claim_url: string | null;
  /** The customer's address, once given. */
  readonly address: string | null;
  /** Where the shop sends the refund's USDC, once the address is known. */
  readonly deposit_address: string | null;
  readonly amount_sent: string;
  /** The transaction that paid the customer. */
  readonly txid: string | null;
}

/** The order a refund moves in: a later state is never overwritten by an earlier one read before it. */
const PROGRESS: Record<Refund['status'], number> = {
  awaiting_address: 0,
  awaiting_funds: 1,
  processing: 2,
  refunded: 3,
  canceled: 3,
  expired: 3,
};

/** The refund as Paylink shows it now, over what was known of it. */
export function refundEntry(refund: Refund, known?: Partial<RefundEntry>): RefundEntry {
  return {
    refund_id: refund.refund_id,
    status: refund.status,
    amount: refund.amount,
    requested_amount: refund.requested_amount,
    requested_currency: refund.requested_currency,
    claim_url: refund.claim_url ?? known?.claim_url ?? null,
    address: refund.address,
    deposit_address: refund.deposit_address ?? known?.deposit_address ?? null,
    amount_sent: refund.amount_sent,
    txid: refund.txid,
  };
}

/**
 * The payment's refunds with `refund` brought up to date; undefined when the payment does not hold that refund
 * (one made outside Medusa) or already holds a state at least as far along (events may come out of order).
 */
export function withRefund(entries: readonly unknown[], refund: Refund): RefundEntry[] | undefined {
  const list = entries as Partial<RefundEntry>[];
  const at = list.findIndex((entry) => entry?.refund_id === refund.refund_id);
  if (at < 0) return undefined;
  const known = list[at]!;
  const fresher = refundEntry(refund, known);
  if (known.status && PROGRESS[known.status] > PROGRESS[fresher.status]) return undefined;
  if (JSON.stringify(known) === JSON.stringify(fresher)) return undefined;
  return list.map((entry, i) => (i === at ? fresher : entry)) as RefundEntry[];
}
