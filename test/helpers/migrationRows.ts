import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import type { Payment } from '../../src/domain/payment.ts';

/**
 * A payment's row as written before migration 0039 (no `txid_chain_id` yet), for the tests of earlier
 * migrations, which insert today's rows into a database migrated only up to the migration they test.
 */
export function paymentRowBefore0039(payment: Payment) {
  const { txid_chain_id: _, ...row } = paymentRow(payment);
  return row;
}
