import type { Kysely } from 'kysely';

/**
 * Pull renewal (decision 0061). Its public routes are reached by the subscription's portal token (migration 0050),
 * the one customer token a subscription has. `subscription_mandates`: a subscription's signed terms for the SubscriptionCharger, one per subscription, its
 * status `active` until canceled or replaced. `subscription_charges`: one charge per (subscription, period), the
 * primary key the one-per-period guarantee between workers; its transaction is written before it is broadcast
 * (`sent`), and the period's payment is marked paid once when it is mined. A failed charge waits for
 * `next_attempt_at` to be tried again.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscription_mandates')
    .addColumn('subscription_id', 'text', (c) => c.primaryKey().references('subscriptions.id'))
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('charger', 'text', (c) => c.notNull())
    // The EIP-712 digest the customer signed: the contract's key for the mandate.
    .addColumn('mandate_id', 'text', (c) => c.notNull().unique())
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    // The customer's EIP-2612 permit of the charger (JSON), submitted with the first charge; null: an approve.
    .addColumn('permit', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('subscription_charges')
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('period', 'integer', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('mandate_id', 'text', (c) => c.notNull())
    .addColumn('amount_base_units', 'text', (c) => c.notNull())
    // pending → sent → mined, or failed (tried again at next_attempt_at, or given up when that is null).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('tx_hash', 'text')
    .addColumn('raw_tx', 'text')
    .addColumn('relayer_nonce', 'text')
    .addColumn('gas_used', 'text')
    .addColumn('fee_wei', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscription_charges_pkey', ['subscription_id', 'period'])
    .execute();
  // The relayer's reads: the one sent on a chain, and the next waiting.
  await db.schema
    .createIndex('subscription_charges_queue')
    .on('subscription_charges')
    .columns(['chain_id', 'status', 'next_attempt_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('subscription_charges').execute();
  await db.schema.dropTable('subscription_mandates').execute();
}
