import { type Kysely, sql } from 'kysely';

/**
 * Receipts by e-mail (issue 28):
 * - `merchants.send_receipts`: whether a paid payment with a customer e-mail gets a receipt; on by default, as
 *   a customer who gave an address expects one.
 * - `payments.receipt_token`: the unguessable part of the public receipt page's URL (`/receipts/<token>`),
 *   written with the receipt in the transaction that marks the payment paid; null while none was sent.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('send_receipts', 'integer', (c) =>
      c.notNull().defaultTo(1).check(sql`send_receipts in (0, 1)`),
    )
    .execute();
  await db.schema.alterTable('payments').addColumn('receipt_token', 'text').execute();
  await db.schema
    .createIndex('payments_receipt_token')
    .unique()
    .on('payments')
    .column('receipt_token')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_receipt_token').execute();
  await db.schema.alterTable('payments').dropColumn('receipt_token').execute();
  await db.schema.alterTable('merchants').dropColumn('send_receipts').execute();
}
