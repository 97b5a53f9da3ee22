import { formatUsdc } from '../../domain/money.ts';
import { payoutStateOf } from '../../domain/payment.ts';
import type { PayoutPolicy, PayoutStatus } from '../../domain/payout.ts';
import type { Clock } from '../shared/ports.ts';
import type { SettlementStore } from './ports.ts';

/** A payout that has not fully gone out, as operators see it (`paylink settlements list`, the console). */
export interface PayoutView {
  readonly payment_id: string;
  readonly merchant_id: string;
  readonly chain_id: number | null;
  readonly livemode: boolean;
  readonly status: string;
  readonly payout_status: PayoutStatus | null;
  readonly amount_received: string;
  readonly merchant_paid: string;
  readonly treasury_paid: string;
  /** Final funds still in the deposit address (both shares). */
  readonly unsettled: string;
  readonly failures: number;
  readonly next_attempt_at: string | null;
  readonly payout_blocked_since: string | null;
  readonly payout_blocked_reason: string | null;
  readonly commission_blocked_since: string | null;
  readonly commission_blocked_reason: string | null;
}

const MAX_LIST = 500;

/**
 * Payouts still owed, oldest first: final funds waiting for a flush, or a share failing to go out (`failingOnly`:
 * only those), each with its back-off and the token's reason.
 */
export async function listPayouts(
  deps: { readonly settlements: SettlementStore; readonly clock: Clock },
  policy: PayoutPolicy,
  filter: { readonly failingOnly: boolean; readonly limit: number },
): Promise<PayoutView[]> {
  if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > MAX_LIST)
    throw new RangeError(`limit must be 1..${MAX_LIST}`);
  const now = deps.clock.now();
  const rows = await deps.settlements.listUnsettled({
    dustThresholdBaseUnits: policy.dustThresholdBaseUnits,
    failingOnly: filter.failingOnly,
    limit: filter.limit,
  });
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return rows.map(({ payment, unsettledBaseUnits }) => ({
    payment_id: payment.id,
    merchant_id: payment.merchantId,
    chain_id: payment.deposit?.chainId ?? null,
    livemode: payment.mode === 'live',
    status: payment.status,
    payout_status: payoutStateOf(payment, payment, policy, now).status,
    amount_received: formatUsdc(payment.amountReceivedBaseUnits),
    merchant_paid: formatUsdc(payment.payout.merchantPaidBaseUnits),
    treasury_paid: formatUsdc(payment.payout.treasuryPaidBaseUnits),
    unsettled: formatUsdc(unsettledBaseUnits),
    failures: payment.payout.failures,
    next_attempt_at: iso(payment.payout.retryAt),
    payout_blocked_since: iso(payment.payout.blockedSince),
    payout_blocked_reason: payment.payout.blockedReason,
    commission_blocked_since: iso(payment.payout.commissionBlockedSince),
    commission_blocked_reason: payment.payout.commissionBlockedReason,
  }));
}
