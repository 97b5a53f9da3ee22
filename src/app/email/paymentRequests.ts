/** What a payment request e-mail says: figures as exact decimal strings, never numbers. */
export interface PaymentRequestData {
  readonly merchantName: string;
  /** The price as the merchant set it ("25.00") and its currency ("EUR"). */
  readonly amount: string;
  readonly currency: string;
  /** The USDC the customer pays ("27.00"). */
  readonly usdcAmount: string;
  readonly orderId: string | null;
  readonly expiresAt: Date;
  /** The checkout page of the payment (`payment_url`): the button. */
  readonly paymentUrl: string;
}
