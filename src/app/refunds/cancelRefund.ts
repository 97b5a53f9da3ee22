import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { cancelable, deriveRefundStatus, refundFundingOf } from '../../domain/refund.ts';
import type { Clock } from '../shared/ports.ts';
import type { RefundRecord, RefundStore } from './ports.ts';
import { insertRefundEvent } from './refundEvents.ts';

/**
 * Cancels a refund nobody has sent money to yet. Its deposit address, if it has one, still forwards anything
 * sent to it later to the customer (it can pay nobody else): a canceled refund that is funded anyway shows as
 * funded and refunded, never as canceled money that vanished.
 */
export async function cancelRefund(
  deps: { readonly refunds: RefundStore; readonly clock: Clock },
  merchantId: string,
  mode: KeyMode,
  refundId: string,
): Promise<RefundRecord> {
  const found = await deps.refunds.findForMerchant(merchantId, mode, refundId);
  if (!found) throw new PaylinkError('NOT_FOUND', 'Refund not found');
  const now = deps.clock.now();
  return deps.refunds.transaction(async (t) => {
    await t.lockPayment(found.refund.paymentId, now);
    const current = (await t.refundsOf(found.refund.paymentId)).find((r) => r.refund.id === refundId)!;
    const funding = refundFundingOf(current.deposit);
    const status = deriveRefundStatus(current.refund, funding, now);
    if (!cancelable(status, funding))
      throw new PaylinkError(
        'REFUND_NOT_CANCELABLE',
        status === 'canceled'
          ? 'The refund is already canceled'
          : `Only a refund not yet funded can be canceled; it is ${status}`,
      );
    await t.cancel(refundId, now);
    await t.setAnnounced(refundId, 'canceled', now);
    const record = {
      ...current,
      refund: { ...current.refund, canceledAt: now, announcedStatus: 'canceled' as const },
    };
    await insertRefundEvent(t, 'refund.canceled', record, 'canceled', now);
    return record;
  });
}
