import { ValidationError } from '../../domain/errors.ts';
import { isPaymentId } from './getPaymentStatus.ts';
import type { PaymentStore } from './ports.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * The merchant's (null: any merchant's) payments, either mode, that one search term names: a payment id, a deposit address, or the hash
 * of a transaction that paid one (any letter case). Another merchant's payment is never found.
 */
export async function searchPayments(
  deps: { readonly payments: PaymentStore },
  /** Null: any merchant's (the operator's console). */
  merchantId: string | null,
  text: string,
): Promise<string[]> {
  const term = text.trim();
  if (isPaymentId(term)) {
    const id = term.toLowerCase();
    if (merchantId === null) {
      const payment = await deps.payments.findById(id);
      return payment ? [payment.id] : [];
    }
    const found = await Promise.all(
      (['live', 'test'] as const).map((mode) => deps.payments.findForMerchant(merchantId, id, mode)),
    );
    return found.flatMap((payment) => (payment ? [payment.id] : []));
  }
  if (ADDRESS.test(term)) return deps.payments.searchForMerchant(merchantId, { depositAddress: term });
  if (TX_HASH.test(term)) return deps.payments.searchForMerchant(merchantId, { txHash: term });
  throw new ValidationError('q', 'must be a payment id, a deposit address or a transaction hash');
}
