import type { PaymentStatus } from './paymentStatus.ts';
import type { Quote } from './quote.ts';

export interface Payment {
  /** UUID, as the spec requires. */
  readonly id: string;
  readonly merchantId: string;
  readonly quote: Quote;
  readonly rateSource: string;
  readonly rateObservedAt: Date;
  /** The merchant's tolerance when the payment was created; later changes do not move a quoted payment. */
  readonly underpaymentToleranceBps: number;
  /** The merchant's wallet when the payment was created: the deposit address is committed to it. */
  readonly payoutAddress: string;
  readonly webhookUrl: string | null;
  readonly orderId: string | null;
  readonly customerEmail: string | null;
  readonly status: PaymentStatus;
  readonly amountReceivedBaseUnits: bigint;
  readonly paidAt: Date | null;
  readonly late: boolean;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
