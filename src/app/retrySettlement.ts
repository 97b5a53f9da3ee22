import { PaylinkError } from '../domain/errors.ts';
import type { SettlementStore } from './ports.ts';

/**
 * Puts a payment back in the settler's queue after an operator fixed why its flush kept failing (a merchant
 * wallet that refused USDC, say): its failure count goes back to 0, so the next pass tries it again (alone at
 * first, as any payment that failed before). Returns the count it had.
 */
export async function retrySettlement(
  deps: { settlements: SettlementStore },
  paymentId: string,
): Promise<number> {
  const previous = await deps.settlements.resetFailures(paymentId.trim().toLowerCase());
  if (previous === undefined) throw new PaylinkError('NOT_FOUND', 'Payment not found');
  return previous;
}
