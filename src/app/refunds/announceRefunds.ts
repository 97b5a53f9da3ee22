import { deriveRefundStatus, refundEventsBetween, refundFundingOf } from '../../domain/refund.ts';
import { queueRefundNotice, type RefundNoticeSettings } from '../email/refundNotices.ts';
import type { Clock } from '../shared/ports.ts';
import type { RefundStore } from './ports.ts';
import { insertRefundEvent } from './refundEvents.ts';

/**
 * Tells merchants what the chain and the clock did to their refunds: funded (the merchant's transfer is
 * final), refunded (the customer was paid), expired (no address in time). Each pass compares the derived status
 * of the refunds that moved with what their merchant was last told, and writes the events owed, with
 * the new mark, in one transaction per payment: run twice, it tells nothing twice. Returns the refunds told.
 */
export async function announceRefunds(
  deps: {
    readonly refunds: RefundStore;
    readonly clock: Clock;
    /** Where e-mail is configured: the customer is told when the refund was sent. */
    readonly refundNotices?: RefundNoticeSettings | undefined;
  },
  limit = 500,
): Promise<string[]> {
  const now = deps.clock.now();
  const listed = await deps.refunds.listDue(now, limit);
  const due = listed.filter(
    (r) => deriveRefundStatus(r.refund, refundFundingOf(r.deposit), now) !== r.refund.announcedStatus,
  );
  const told: string[] = [];
  for (const paymentId of [...new Set(due.map((r) => r.refund.paymentId))].sort()) {
    await deps.refunds.transaction(async (t) => {
      const payment = await t.lockPayment(paymentId, now);
      for (const record of await t.refundsOf(paymentId)) {
        const status = deriveRefundStatus(record.refund, refundFundingOf(record.deposit), now);
        if (status === record.refund.announcedStatus) continue;
        for (const type of refundEventsBetween(record.refund.announcedStatus, status)) {
          await insertRefundEvent(t, type, record, status, now);
          if (type === 'refund.refunded' && payment && deps.refundNotices)
            await queueRefundNotice(t, deps.refundNotices, payment, record, 'sent', now);
        }
        await t.setAnnounced(record.refund.id, status, now);
        told.push(record.refund.id);
      }
    });
  }
  return told;
}
