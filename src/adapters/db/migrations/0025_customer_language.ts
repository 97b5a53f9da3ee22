/**
 * The payer's language (issue 28), for the e-mails written to a payment's customer:
 * - `payments.customer_language`: the language the merchant gave on create (`customer_language`), as given;
 * - `payments.payer_language`: the language the checkout last showed the payer while the payment was open,
 *   used only where the merchant gave none (decision 0025).
 */
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('customer_language', 'text').execute();
  await db.schema.alterTable('payments').addColumn('payer_language', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').dropColumn('payer_language').execute();
  await db.schema.alterTable('payments').dropColumn('customer_language').execute();
}
