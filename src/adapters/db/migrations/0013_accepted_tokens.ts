import { type Kysely, sql } from 'kysely';

/**
 * Accepted tokens (PAYLINK_ACCEPTED_TOKENS: USDC, and USDC.e where enabled) and noticed ones:
 * - `transfers.token_symbol`: which accepted token paid (every earlier transfer was USDC), and on the payment,
 *   the token of its transfer named by `txid` (`paid_token_*`);
 * - `unaccepted_transfers`: tokens that do not pay, sent to a payment's deposit address by mistake — recorded
 *   and reported, forwarded only when an operator sweeps them;
 * - `deposit_balances`: per deposit address and token, what arrived (final) and what went out to each side. A
 *   forwarder is flushed one token at a time, so the settler picks (deposit, token) pairs from here; the payment's
 *   own columns keep the sums over its accepted tokens. `owner_kind` leaves room for deposit addresses that are
 *   not payments' (refunds). Backfilled from each payment's USDC.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('transfers')
    .addColumn('token_symbol', 'text', (c) => c.notNull().defaultTo(sql`'USDC'`))
    .execute();

  for (const column of ['paid_token_address', 'paid_token_symbol']) {
    await db.schema.alterTable('payments').addColumn(column, 'text').execute();
  }
  await sql`
    update payments set paid_token_address = token_address, paid_token_symbol = 'USDC' where txid is not null
  `.execute(db);

  await db.schema
    .createTable('unaccepted_transfers')
    // `<chain id>:<block hash>:<log index>`, like transfers: a reorg makes a new one.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    .addColumn('token_symbol', 'text', (c) => c.notNull())
    .addColumn('token_decimals', 'integer', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('amount_base_units', 'text', (c) => c.notNull())
    .addColumn('orphaned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('unaccepted_transfers_payment')
    .on('unaccepted_transfers')
    .column('payment_id')
    .execute();
  await db.schema
    .createIndex('unaccepted_transfers_block')
    .on('unaccepted_transfers')
    .columns(['chain_id', 'block_number'])
    .execute();

  await db.schema
    .createTable('deposit_balances')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('owner_kind', 'text', (c) => c.notNull().defaultTo(sql`'payment'`))
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    // 1: it pays and is settled on its own; 0: noticed only, flushed when an operator sweeps it.
    .addColumn('accepted', 'integer', (c) => c.notNull())
    .addColumn('received_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('merchant_paid_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('treasury_paid_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('settled_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addPrimaryKeyConstraint('deposit_balances_pk', ['owner_id', 'token_address'])
    .execute();
  // What the settler looks for: balances not flushed yet. Few rows; the predicate appears verbatim in its query.
  await db.schema
    .createIndex('deposit_balances_unsettled')
    .on('deposit_balances')
    .column('chain_id')
    .where(sql<boolean>`received_base_units <> settled_base_units`)
    .execute();
  await sql`
    insert into deposit_balances (owner_id, owner_kind, chain_id, token_address, accepted, received_base_units,
      merchant_paid_base_units, treasury_paid_base_units, settled_base_units)
    select id, 'payment', chain_id, token_address, 1, amount_received_base_units, merchant_paid_base_units,
      treasury_paid_base_units, settled_base_units
    from payments
    where chain_id is not null and token_address is not null
  `.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deposit_balances').execute();
  await db.schema.dropTable('unaccepted_transfers').execute();
  await db.schema.alterTable('payments').dropColumn('paid_token_symbol').execute();
  await db.schema.alterTable('payments').dropColumn('paid_token_address').execute();
  await db.schema.alterTable('transfers').dropColumn('token_symbol').execute();
}
