import type { Kysely } from 'kysely';

/**
 * On-chain payments: each payment's deposit address and the parameters it commits to, every transfer seen to a
 * deposit address, the watcher's cursor and recent block hashes (for reorg detection), and the outbox of
 * events written in the same transaction as the status change that owes them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  // Nullable only because payments created before this migration have no deposit address.
  await db.schema.alterTable('payments').addColumn('chain_id', 'integer').execute();
  await db.schema.alterTable('payments').addColumn('token_address', 'text').execute();
  await db.schema.alterTable('payments').addColumn('factory_address', 'text').execute();
  await db.schema.alterTable('payments').addColumn('treasury_address', 'text').execute();
  await db.schema.alterTable('payments').addColumn('deposit_address', 'text').execute();
  await db.schema.alterTable('payments').addColumn('txid', 'text').execute();
  await db.schema
    .alterTable('payments')
    .addColumn('settled_base_units', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
  await db.schema.alterTable('payments').addColumn('payout_tx_hash', 'text').execute();
  await db.schema.alterTable('payments').addColumn('settled_at', 'text').execute();
  // Where the checkout's success screen sends the customer back to, if the merchant gave one.
  await db.schema.alterTable('payments').addColumn('return_url', 'text').execute();
  // Deposit addresses are stored lowercase: logs are matched on them, and an index is case-sensitive.
  await db.schema
    .createIndex('payments_deposit_address')
    .on('payments')
    .column('deposit_address')
    .unique()
    .execute();
  await db.schema
    .createIndex('payments_status_expires')
    .on('payments')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('block_timestamp', 'text', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount_base_units', 'text', (c) => c.notNull())
    .addColumn('final', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('orphaned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('transfers_payment').on('transfers').column('payment_id').execute();
  await db.schema
    .createIndex('transfers_unsettled')
    .on('transfers')
    .columns(['chain_id', 'final', 'orphaned', 'block_number'])
    .execute();

  await db.schema
    .createTable('chain_cursors')
    .addColumn('chain_id', 'integer', (c) => c.primaryKey())
    .addColumn('next_block', 'bigint', (c) => c.notNull())
    .addColumn('head_block', 'bigint', (c) => c.notNull())
    .addColumn('finalized_block', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('chain_blocks')
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('chain_blocks_pk', ['chain_id', 'number'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    // Order of a payment's events (1, 2, …): timestamps can tie, and merchants need the order.
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('events_payment_sequence', ['payment_id', 'sequence'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
  await db.schema.dropTable('chain_blocks').execute();
  await db.schema.dropTable('chain_cursors').execute();
  await db.schema.dropTable('transfers').execute();
  await db.schema.dropIndex('payments_status_expires').execute();
  await db.schema.dropIndex('payments_deposit_address').execute();
  for (const column of [
    'return_url',
    'settled_at',
    'payout_tx_hash',
    'settled_base_units',
    'txid',
    'deposit_address',
    'treasury_address',
    'factory_address',
    'token_address',
    'chain_id',
  ]) {
    await db.schema.alterTable('payments').dropColumn(column).execute();
  }
}
