import { type Kysely, sql } from 'kysely';

/**
 * Settlement across chains through CCTP (docs/decisions/0029-bridge-settlement.md):
 * - `deposit_balances` per (owner, chain, token): one deposit address now holds money on several chains, and two
 *   chains may even share a token address, so the chain is part of the key. A new column `bridged_base_units` is
 *   what CCTP minted into the home chain's forwarder for the payment (the home row only); what the settler may
 *   flush there is received + bridged − settled. On a source chain's row, `settled_base_units` counts what was
 *   burnt out of the forwarder (no merchant or treasury is paid there). The table is rebuilt (SQLite cannot change
 *   a primary key in place), keeping every row; its partial index follows the new "not yet flushed" predicate.
 * - `bridge_transfers`: one row per burn of one payment's money on one source chain, with each step's
 *   transaction persisted before broadcast (as the settler's relayer_transactions), the message and attestation,
 *   the attempts and when the stall began — so that every step resumes after a crash and a stall is reported.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deposit_balances_by_chain')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('owner_kind', 'text', (c) => c.notNull().defaultTo(sql`'payment'`))
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    .addColumn('accepted', 'integer', (c) => c.notNull())
    .addColumn('received_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('bridged_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('merchant_paid_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('treasury_paid_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('settled_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    // A new constraint name: on PostgreSQL the old table's still holds `deposit_balances_pk` until it is dropped.
    .addPrimaryKeyConstraint('deposit_balances_owner_chain_token_pk', [
      'owner_id',
      'chain_id',
      'token_address',
    ])
    .execute();
  await sql`
    insert into deposit_balances_by_chain (owner_id, owner_kind, chain_id, token_address, accepted,
      received_base_units, merchant_paid_base_units, treasury_paid_base_units, settled_base_units)
    select owner_id, owner_kind, chain_id, token_address, accepted, received_base_units, merchant_paid_base_units,
      treasury_paid_base_units, settled_base_units
    from deposit_balances
  `.execute(db);
  await db.schema.dropTable('deposit_balances').execute();
  await db.schema.alterTable('deposit_balances_by_chain').renameTo('deposit_balances').execute();
  // What the settler and the burner look for: balances not moved on yet. Verbatim in their query.
  await db.schema
    .createIndex('deposit_balances_unsettled')
    .on('deposit_balances')
    .column('chain_id')
    .where(sql.raw<boolean>(UNSETTLED))
    .execute();

  await db.schema
    .createTable('bridge_transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('source_chain_id', 'integer', (c) => c.notNull())
    .addColumn('source_domain', 'integer', (c) => c.notNull())
    .addColumn('home_chain_id', 'integer', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    .addColumn('deposit_address', 'text', (c) => c.notNull())
    .addColumn('amount_base_units', 'text', (c) => c.notNull())
    // The most CCTP may keep (0 for a standard transfer), bound before the burn; the fee taken comes after.
    .addColumn('speed', 'text', (c) => c.notNull())
    .addColumn('max_fee_base_units', 'text', (c) => c.notNull())
    .addColumn('min_finality_threshold', 'integer', (c) => c.notNull())
    // burn → attest → mint → done
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('burn_relayer', 'text')
    .addColumn('burn_nonce', 'text')
    .addColumn('burn_raw_tx', 'text')
    .addColumn('burn_tx_hash', 'text')
    .addColumn('burn_block_number', 'bigint')
    // The MessageSent bytes as emitted (Circle fills in the nonce), then the attested ones.
    .addColumn('message', 'text')
    .addColumn('attested_message', 'text')
    .addColumn('attestation', 'text')
    .addColumn('cctp_nonce', 'text')
    .addColumn('fee_executed_base_units', 'text')
    .addColumn('mint_relayer', 'text')
    .addColumn('mint_nonce', 'text')
    .addColumn('mint_raw_tx', 'text')
    .addColumn('mint_tx_hash', 'text')
    .addColumn('minted_base_units', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_error', 'text')
    // When the current step first failed or waited past its normal time; null while all goes well.
    .addColumn('stalled_since', 'text')
    .addColumn('delay_notified_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  // The open transfers, by step: what each step's job reads. Done ones (nearly all) leave it.
  await db.schema
    .createIndex('bridge_transfers_open')
    .on('bridge_transfers')
    .columns(['step', 'next_attempt_at'])
    .where(sql.raw<boolean>("step <> 'done'"))
    .execute();
  // One open burn per payment and source chain: a second would burn money the first is already moving.
  await db.schema
    .createIndex('bridge_transfers_one_open')
    .on('bridge_transfers')
    .columns(['payment_id', 'source_chain_id'])
    .unique()
    .where(sql.raw<boolean>("step <> 'done'"))
    .execute();
  await db.schema
    .createIndex('bridge_transfers_payment')
    .on('bridge_transfers')
    .column('payment_id')
    .execute();
}

/** Received (and on the home chain bridged in) but not all moved on: as the query writes it, for both planners. */
const UNSETTLED =
  'cast(received_base_units as bigint) + cast(bridged_base_units as bigint) <> cast(settled_base_units as bigint)';

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bridge_transfers').execute();
  await db.schema
    .createTable('deposit_balances_by_token')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('owner_kind', 'text', (c) => c.notNull().defaultTo(sql`'payment'`))
    .addColumn('chain_id', 'integer', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    .addColumn('accepted', 'integer', (c) => c.notNull())
    .addColumn('received_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('merchant_paid_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('treasury_paid_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addColumn('settled_base_units', 'text', (c) => c.notNull().defaultTo(sql`'0'`))
    .addPrimaryKeyConstraint('deposit_balances_pk', ['owner_id', 'token_address'])
    .execute();
  // Only the home chain's rows fit the old key (a payment's own chain_id; a refund's address has one chain).
  await sql`
    insert into deposit_balances_by_token (owner_id, owner_kind, chain_id, token_address, accepted,
      received_base_units, merchant_paid_base_units, treasury_paid_base_units, settled_base_units)
    select b.owner_id, b.owner_kind, b.chain_id, b.token_address, b.accepted, b.received_base_units,
      b.merchant_paid_base_units, b.treasury_paid_base_units, b.settled_base_units
    from deposit_balances b left join payments p on p.id = b.owner_id
    where p.id is null or p.chain_id = b.chain_id
  `.execute(db);
  await db.schema.dropTable('deposit_balances').execute();
  await db.schema.alterTable('deposit_balances_by_token').renameTo('deposit_balances').execute();
  await db.schema
    .createIndex('deposit_balances_unsettled')
    .on('deposit_balances')
    .column('chain_id')
    .where(sql<boolean>`received_base_units <> settled_base_units`)
    .execute();
}
