import { ValidationError } from '../../domain/errors.ts';
import { parsePaymentReference } from '../../domain/paymentReference.ts';
import { isPaymentId } from './getPaymentStatus.ts';
import type { PaymentSearchTerm, PaymentStore } from './ports.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** The longest order id a payment may have (domain/paymentInput.ts); a longer term names nothing. */
const MAX_TERM_LENGTH = 255;

/**
 * The merchant's (null: any merchant's) payments, either mode, that one search term names: a payment id, a
 * deposit address, the hash of a transaction that paid one (any letter case), a short reference (`PL-7K2M-9QXD`,
 * as people type it), the customer's e-mail (any letter case), or the merchant's order id (exactly; only within
 * one merchant: order ids are each merchant's own). A term that could be several is looked up as each. Another
 * merchant's payment is never found.
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
  const lookups = termLookups(term, merchantId !== null);
  if (lookups.length === 0) {
    throw new ValidationError(
      'q',
      merchantId === null
        ? 'must be a payment id or reference, a deposit address, a transaction hash or a customer e-mail'
        : 'must be a payment id or reference, a deposit address, a transaction hash, a customer e-mail or an order id',
    );
  }
  const found = await Promise.all(
    lookups.map((lookup) => deps.payments.searchForMerchant(merchantId, lookup)),
  );
  return [...new Set(found.flat())];
}

/** What a free term may be: a reference, an e-mail address, an order id (within one merchant). */
function termLookups(term: string, oneMerchant: boolean): PaymentSearchTerm[] {
  if (term === '' || term.length > MAX_TERM_LENGTH) return [];
  const lookups: PaymentSearchTerm[] = [];
  const reference = parsePaymentReference(term);
  if (reference) lookups.push({ reference });
  if (/^[^@\s]+@[^@\s]+$/.test(term)) lookups.push({ customerEmail: term });
  if (oneMerchant) lookups.push({ orderId: term });
  return lookups;
}
