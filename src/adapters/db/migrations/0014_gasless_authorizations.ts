import { type Kysely, sql } from 'kysely';

/**
 * Gasless payment (docs/decisions/0012-gasless-payment.md): the customers' signed EIP-3009 authorizations,
 * accepted by the checkout after every check, relayed by the worker's gasless relayer.
 * - One authorization per (token, authorizer, nonce), as the token itself enforces: a replay is refused here
 *   before any gas is spent.
 * - At most one in flight per payment (`pending` or `sent`): a partial unique index.
 * - What the relayer spent on each (`gas_used`, `fee_wei`), for the operators' figures and the hourly cap.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('gasless_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('value_base_units', 'text', (c) => c.notNull())
    .addColumn('valid_after', 'text', (c) => c.notNull())
    .addColumn('valid_before', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('client_address', 'text', (c) => c.notNull())
    // pending → sent → mined | failed
    .addColumn('status', 'text', (c) => c.notNull())
    // The relayer's signed transaction, persisted before it is broadcast (resumed after a crash).
    .addColumn('tx_hash', 'text')
    .addColumn('raw_tx', 'text')
    .addColumn('relayer_nonce', 'text')
    .addColumn('gas_used', 'text')
    .addColumn('fee_wei', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('gasless_authorizations_nonce')
    .on('gasless_authorizations')
    .columns(['chain_id', 'token_address', 'from_address', 'nonce'])
    .unique()
    .execute();
  await db.schema
    .createIndex('gasless_authorizations_in_flight')
    .on('gasless_authorizations')
    .column('payment_id')
    .unique()
    .where(sql<boolean>`status in ('pending', 'sent')`)
    .execute();
  await db.schema
    .createIndex('gasless_authorizations_queue')
    .on('gasless_authorizations')
    .columns(['chain_id', 'created_at'])
    .where(sql<boolean>`status in ('pending', 'sent')`)
    .execute();
  // The hourly cap sums the fees of the last hour.
  await db.schema
    .createIndex('gasless_authorizations_finished')
    .on('gasless_authorizations')
    .columns(['chain_id', 'finished_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('gasless_authorizations').execute();
}
