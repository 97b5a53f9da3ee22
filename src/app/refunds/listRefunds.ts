import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import { isPaymentId, PaymentNotFoundError } from '../payments/getPaymentStatus.ts';
import { decodeCursor, encodeCursor } from '../payments/listPayments.ts';
import type { PaymentStore } from '../payments/ports.ts';
import type { PageRequest } from '../shared/keysetPage.ts';
import type { RefundRecord, RefundStore } from './ports.ts';

/** One of the merchant's refunds; unknown, malformed and other merchants' or modes' ids are the same 404. */
export async function getRefund(
  deps: { readonly refunds: RefundStore },
  merchantId: string,
  mode: KeyMode,
  refundId: string,
): Promise<RefundRecord> {
  const record = isPaymentId(refundId)
    ? await deps.refunds.findForMerchant(merchantId, mode, refundId.toLowerCase())
    : undefined;
  if (!record) throw new PaylinkError('NOT_FOUND', 'Refund not found');
  return record;
}

/** The merchant's refunds (of one payment, if asked), newest first, with the payment list's opaque cursors. */
export async function listRefunds(
  deps: { readonly refunds: RefundStore },
  merchantId: string,
  mode: KeyMode,
  input: PageRequest & { readonly paymentId?: string | undefined },
): Promise<{ records: RefundRecord[]; nextCursor: string | null }> {
  const paymentId = input.paymentId?.trim().toLowerCase();
  if (paymentId !== undefined && !isPaymentId(paymentId))
    throw new PaylinkError('VALIDATION_ERROR', 'payment_id: must be a payment id (UUID)', {
      field: 'payment_id',
    });
  // The cursor is bound to the merchant, the mode and the filter, like the payment list's.
  const fingerprint = JSON.stringify(['refunds', merchantId, mode, paymentId ?? null]);
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, fingerprint);
  const records = await deps.refunds.listForMerchant({
    merchantId,
    mode,
    paymentId,
    limit: input.limit + 1,
    after,
  });
  const more = records.length > input.limit;
  const page = records.slice(0, input.limit);
  const last = page.at(-1)?.refund;
  return {
    records: page,
    nextCursor: more && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }, fingerprint) : null,
  };
}

/**
 * Refunds for an administrator: of one payment (any merchant's), or of one merchant in one mode; newest first,
 * with the same cursors. An unknown payment or merchant is a 404, as is a payment of another merchant than named.
 */
export async function listRefundsAsAdmin(
  deps: {
    readonly refunds: RefundStore;
    readonly payments: Pick<PaymentStore, 'findById'>;
    readonly merchants: Pick<MerchantStore, 'find'>;
  },
  input: PageRequest & {
    readonly merchantId?: string | undefined;
    readonly paymentId?: string | undefined;
    readonly mode?: KeyMode | undefined;
  },
): Promise<{ records: RefundRecord[]; nextCursor: string | null }> {
  const paymentId = input.paymentId?.trim().toLowerCase();
  if (paymentId) {
    const payment = isPaymentId(paymentId) ? await deps.payments.findById(paymentId) : undefined;
    if (!payment || (input.merchantId !== undefined && payment.merchantId !== input.merchantId.trim()))
      throw new PaymentNotFoundError();
    return listRefunds(deps, payment.merchantId, payment.mode, { ...input, paymentId });
  }
  const merchantId = input.merchantId?.trim();
  if (!merchantId)
    throw new ValidationError('merchant_id', 'give merchant_id or payment_id: whose refunds to list');
  if (!(await deps.merchants.find(merchantId))) throw new PaylinkError('NOT_FOUND', 'Merchant not found');
  return listRefunds(deps, merchantId, input.mode ?? 'live', { ...input, paymentId: undefined });
}

/** Any refund, by id, for an administrator. */
export async function getRefundAsAdmin(
  deps: { readonly refunds: RefundStore },
  refundId: string,
): Promise<RefundRecord> {
  const record = isPaymentId(refundId) ? await deps.refunds.find(refundId.toLowerCase()) : undefined;
  if (!record) throw new PaylinkError('NOT_FOUND', 'Refund not found');
  return record;
}
