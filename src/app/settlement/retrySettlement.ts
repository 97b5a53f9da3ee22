import { PaylinkError } from '../../domain/errors.ts';
import type { SettlementStore } from './ports.ts';

/**
 * Ends the back-off of one payment whose payout is failing (or of all of them): the next settler pass tries it
 * again. Payouts resume on their own once the cause clears; this is for an operator who fixed it and will not
 * wait. Returns how many payments were waiting.
 */
export async function retrySettlement(
  deps: { readonly settlements: SettlementStore },
  target: { readonly paymentId: string } | { readonly all: true },
): Promise<number> {
  if ('all' in target) return deps.settlements.retryNow({ all: true });
  const count = await deps.settlements.retryNow({ paymentId: target.paymentId.trim().toLowerCase() });
  if (count === 0) throw new PaylinkError('NOT_FOUND', 'No payment with a payout waiting has this id');
  return count;
}
