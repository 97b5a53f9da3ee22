import { newEventId } from '../../domain/credentials.ts';
import type { PaymentEventType } from '../../domain/paymentStatus.ts';
import { type RefundStatus, refundFundingOf } from '../../domain/refund.ts';
import { refundEventBody, refundFields } from '../../domain/refundEvent.ts';
import type { RefundRecord, RefundTransaction } from './ports.ts';

/** Writes one refund event on its payment's timeline, in the caller's transaction (the change and its event). */
export async function insertRefundEvent(
  t: RefundTransaction,
  type: PaymentEventType,
  record: RefundRecord,
  status: RefundStatus,
  now: Date,
): Promise<void> {
  const eventId = newEventId();
  const fields = refundFields(record.refund, refundFundingOf(record.deposit), status);
  await t.insertEvent({
    id: eventId,
    paymentId: record.refund.paymentId,
    merchantId: record.refund.merchantId,
    type,
    payload: JSON.stringify(refundEventBody(eventId, type, fields, now)),
    createdAt: now,
  });
}
