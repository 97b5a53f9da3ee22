import type { Payment } from '../../domain/payment.ts';
import type { PaymentState } from '../../domain/paymentStatus.ts';
import { newReceiptToken, receiptUrl } from '../email/receipts.ts';
import type { ReceiptTokenStore } from './ports.ts';

export interface SaleReceiptDeps {
  readonly tokens: ReceiptTokenStore;
  /** The checkout's public origin, where receipt pages are. */
  readonly checkoutUrl: string;
}

/**
 * A paid sale's receipt page (the one the receipt e-mail links to), for the counter to show as a QR code: the
 * page it has, or, when `issue` and it has none (no e-mail was given), a new one. Nothing before it is paid.
 */
export async function saleReceiptUrl(
  deps: SaleReceiptDeps,
  payment: Payment,
  state: PaymentState,
  issue: boolean,
): Promise<string | null> {
  if (state.status !== 'paid') return null;
  const token = issue
    ? await deps.tokens.issue(payment.id, newReceiptToken())
    : await deps.tokens.tokenOf(payment.id);
  return token === null ? null : receiptUrl(deps.checkoutUrl, token);
}
