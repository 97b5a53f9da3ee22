import { type Kysely, sql } from 'kysely';

/**
 * Settlement: the flushes of deposit addresses, each one relayer transaction (plus its gas-bumped replacements,
 * same nonce and payload), persisted before broadcast so that a restart resumes them instead of sending again.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  // Counts flushes that reverted or moved nothing; a payment with failures goes alone, and after 5 it waits
  // for an operator (so one bad merchant address can neither block nor drain the relayer).
  await db.schema
    .alterTable('payments')
    .addColumn('settlement_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Settled payments (received = settled) are the vast majority and are left out of this index, so picking
  // candidates costs what is due, not what was ever paid. Both dialects use a partial index whose predicate
  // appears verbatim in the query.
  await db.schema
    .createIndex('payments_unsettled')
    .on('payments')
    .columns(['chain_id', 'settlement_failures'])
    .where(sql<boolean>`amount_received_base_units <> settled_base_units`)
    .execute();

  await db.schema
    .createTable('settlements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('nonce', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payout_tx_hash', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addCheckConstraint('settlements_status', sql`status in ('pending', 'confirmed', 'failed')`)
    // Every settlement's nonce is consumed on chain before the next one is chosen, so a nonce is never reused.
    .addUniqueConstraint('settlements_chain_nonce', ['chain_id', 'nonce'])
    .execute();
  // At most one settlement in flight per chain: a second worker racing the first cannot open another one
  // (two in flight would mean a nonce gap whenever the first is dropped).
  await db.schema
    .createIndex('settlements_one_pending')
    .on('settlements')
    .column('chain_id')
    .unique()
    .where(sql<boolean>`status = 'pending'`)
    .execute();

  await db.schema
    .createTable('settlement_items')
    .addColumn('settlement_id', 'text', (c) => c.notNull().references('settlements.id'))
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    // received − settled when signed; what actually moved is read from the receipt's Flushed events.
    .addColumn('expected_base_units', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('settlement_items_pk', ['settlement_id', 'payment_id'])
    .execute();
  await db.schema
    .createIndex('settlement_items_payment')
    .on('settlement_items')
    .column('payment_id')
    .execute();

  await db.schema
    .createTable('relayer_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('settlement_id', 'text', (c) => c.notNull().references('settlements.id'))
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('nonce', 'bigint', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull().unique())
    .addColumn('raw_tx', 'text', (c) => c.notNull())
    // Wei and gas as TEXT integers, like money (docs/decisions/0004-storage.md).
    .addColumn('gas', 'text', (c) => c.notNull())
    .addColumn('max_fee_per_gas', 'text', (c) => c.notNull())
    .addColumn('max_priority_fee_per_gas', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('replaces_id', 'text', (c) => c.references('relayer_transactions.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('broadcast_at', 'text')
    .addCheckConstraint(
      'relayer_transactions_status',
      sql`status in ('signed', 'broadcast', 'mined', 'replaced')`,
    )
    .execute();
  await db.schema
    .createIndex('relayer_transactions_settlement')
    .on('relayer_transactions')
    .column('settlement_id')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('relayer_transactions').execute();
  await db.schema.dropTable('settlement_items').execute();
  await db.schema.dropTable('settlements').execute();
  await db.schema.dropIndex('payments_unsettled').execute();
  await db.schema.alterTable('payments').dropColumn('settlement_failures').execute();
}
