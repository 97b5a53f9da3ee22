import { PaylinkError } from '../domain/errors.ts';
import type { Payment } from '../domain/payment.ts';
import { derivePaymentState, type PaymentState } from '../domain/paymentStatus.ts';
import type { Clock, PaymentStore } from './ports.ts';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class PaymentNotFoundError extends PaylinkError {
  constructor() {
    super('NOT_FOUND', 'Payment not found');
  }
}

/**
 * A merchant's payment with its status derived now. Unknown, malformed and other merchants' ids are all the
 * same 404, so the answer reveals nothing about payments the caller does not own.
 */
export async function getPaymentStatus(
  deps: { payments: PaymentStore; clock: Clock },
  merchantId: string,
  paymentId: string,
): Promise<{ payment: Payment; state: PaymentState }> {
  if (!UUID_PATTERN.test(paymentId)) throw new PaymentNotFoundError();
  const payment = await deps.payments.findForMerchant(merchantId, paymentId.toLowerCase());
  if (!payment) throw new PaymentNotFoundError();
  const state = derivePaymentState(
    {
      requiredBaseUnits: payment.quote.usdcBaseUnits,
      underpaymentToleranceBps: payment.underpaymentToleranceBps,
      expiresAt: payment.expiresAt,
    },
    // No transfer can be recorded before the chain watcher exists (issue "On-chain payments").
    [],
    deps.clock.now(),
  );
  return { payment, state };
}
