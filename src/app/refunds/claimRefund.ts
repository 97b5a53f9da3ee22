import { PaylinkError } from '../../domain/errors.ts';
import { deriveRefundStatus, refundFundingOf } from '../../domain/refund.ts';
import { depositPlannerFor } from '../payments/createPayment.ts';
import type { Clock } from '../shared/ports.ts';
import type { RefundRecord, RefundStore } from './ports.ts';
import { checkRefundAddress, type RefundAddressDeps, refundDeposit } from './refundAddress.ts';
import { insertRefundEvent } from './refundEvents.ts';

export interface ClaimRefundDeps extends RefundAddressDeps {
  readonly refunds: RefundStore;
  readonly clock: Clock;
}

/**
 * The customer gives the address the refund goes to, once: the refund's deposit address is derived from it
 * (the forwarder can pay nobody else), and the merchant is told (`refund.address_provided`).
 */
export async function claimRefund(
  deps: ClaimRefundDeps,
  refundId: string,
  addressInput: string,
): Promise<RefundRecord> {
  const found = await deps.refunds.find(refundId);
  if (!found) throw new PaylinkError('NOT_FOUND', 'Refund not found');
  const address = await checkRefundAddress(deps, found.refund.mode, 'address', addressInput);
  const planner = depositPlannerFor(deps.deposits, found.refund.mode);
  const now = deps.clock.now();
  return deps.refunds.transaction(async (t) => {
    await t.lockPayment(found.refund.paymentId, now);
    const current = (await t.refundsOf(found.refund.paymentId)).find((r) => r.refund.id === refundId);
    if (!current) throw new PaylinkError('NOT_FOUND', 'Refund not found');
    const status = deriveRefundStatus(current.refund, refundFundingOf(current.deposit), now);
    if (current.refund.address !== null)
      throw new PaylinkError('REFUND_ALREADY_CLAIMED', 'This refund already has an address');
    if (status !== 'awaiting_address')
      throw new PaylinkError('REFUND_CLOSED', `This refund can no longer be claimed: it is ${status}`);
    await t.setAddress(refundId, address, 'customer', now);
    const refund = {
      ...current.refund,
      address,
      addressSource: 'customer' as const,
      addressGivenAt: now,
      announcedStatus: 'awaiting_funds' as const,
      updatedAt: now,
    };
    const deposit = refundDeposit(planner, refund, address, now);
    await t.insertDeposit(deposit);
    await t.setAnnounced(refundId, 'awaiting_funds', now);
    const record = { refund, deposit };
    await insertRefundEvent(t, 'refund.address_provided', record, 'awaiting_funds', now);
    return record;
  });
}
