import type { ReceiptTokenStore } from '../../app/pos/ports.ts';
import type { Db } from './database.ts';

/**
 * Receipt pages' tokens for the point of sale (decision 0054): a paid sale's receipt shown as a QR code at the
 * counter. The same column the receipt e-mail stores its token in (migration 0024), set once: a sale e-mailed a
 * receipt shows that same page.
 */
export function receiptTokenRepository(db: Db): ReceiptTokenStore {
  const tokenOf = async (paymentId: string) => {
    const row = await db
      .selectFrom('payments')
      .select('receipt_token')
      .where('id', '=', paymentId)
      .executeTakeFirst();
    return row?.receipt_token ?? null;
  };
  return {
    tokenOf,
    async issue(paymentId, token) {
      await db
        .updateTable('payments')
        .set({ receipt_token: token })
        .where('id', '=', paymentId)
        .where('receipt_token', 'is', null)
        .execute();
      const stored = await tokenOf(paymentId);
      if (stored === null) throw new Error(`payment ${paymentId} not found for its receipt`);
      return stored;
    },
  };
}
