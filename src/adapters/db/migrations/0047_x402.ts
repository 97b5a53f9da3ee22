import { type Kysely, sql } from 'kysely';

/**
 * The x402 facilitator (docs/decisions/0059-x402-facilitator.md):
 * - A merchant's x402 address is a payment of kind `x402` (as a refund's deposit is one of kind `refund`): the
 *   watcher credits it, the settler flushes it in batches with the commission split on chain, and no merchant
 *   listing shows it. One per merchant and mode: the partial unique index makes two concurrent first calls agree.
 * - `x402_payments`: each settled call, a payment of kind `payment` the merchant sees, tied to the signed
 *   authorization the gasless relayer submits (one each way) and to what the resource server asked for.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payments_x402_account')
    .on('payments')
    .columns(['merchant_id', 'mode'])
    .unique()
    .where(sql.raw<boolean>(`kind = 'x402'`))
    .execute();
  await db.schema
    .createTable('x402_payments')
    .addColumn('payment_id', 'text', (c) => c.primaryKey().references('payments.id'))
    .addColumn('authorization_id', 'text', (c) =>
      c.notNull().unique().references('gasless_authorizations.id'),
    )
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('resource_url', 'text')
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x402_payments').execute();
  await db.schema.dropIndex('payments_x402_account').execute();
}
