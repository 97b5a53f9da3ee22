import { sql } from 'kysely';
import { type PaymentSearchTerm, SEARCH_LIMIT } from '../../app/payments/ports.ts';
import type { Db } from './db.ts';

/**
 * The dashboard's search (app/payments/searchPayments.ts): one indexed read per kind of term, within a merchant or
 * (null) over every merchant. Deposit addresses and hashes are stored lowercase (the watcher matches logs on
 * them); a reference on `payments_reference_merchant`, an e-mail on `payments_customer_email_merchant` (both
 * migration 0042, led by the term so that an operator's search over every merchant is a lookup too), an order id
 * on the merchant's `payments_merchant_order`.
 */
export async function searchPayments(
  db: Db,
  merchantId: string | null,
  term: PaymentSearchTerm,
): Promise<string[]> {
  if ('txHash' in term) {
    const rows = await db
      .selectFrom('transfers')
      .innerJoin('payments', 'payments.id', 'transfers.payment_id')
      .select('payments.id')
      .distinct()
      .where('transfers.tx_hash', '=', term.txHash.toLowerCase())
      .$if(merchantId !== null, (q) => q.where('payments.merchant_id', '=', merchantId as string))
      .where('payments.kind', '=', 'payment')
      .execute();
    return rows.map((row) => row.id);
  }
  let select = db.selectFrom('payments').select('id');
  if ('depositAddress' in term)
    select = select.where('deposit_address', '=', term.depositAddress.toLowerCase());
  else if ('reference' in term) select = select.where('reference', '=', term.reference);
  else if ('customerEmail' in term)
    // As the index is written, and the term lowered by the same function: each database's lower() is its own
    // (SQLite's changes ASCII letters only).
    select = select.where(sql`lower(customer_email)`, '=', sql`lower(${term.customerEmail})`);
  else select = select.where('order_id', '=', term.orderId);
  if (merchantId !== null) select = select.where('merchant_id', '=', merchantId);
  const rows = await select
    .where('kind', '=', 'payment')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(SEARCH_LIMIT)
    .execute();
  return rows.map((row) => row.id);
}
