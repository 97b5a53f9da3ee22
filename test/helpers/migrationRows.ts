import { type Insertable, Migrator } from 'kysely';
import { openDatabase } from '../../src/adapters/db/database.ts';
import type { DialectName } from '../../src/adapters/db/db.ts';
import { migrations } from '../../src/adapters/db/migrations/index.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import type { MerchantsTable } from '../../src/adapters/db/schema.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { createEmptyDatabase } from './database.ts';

/**
 * A merchant's row as every migration since 0001 has left the table (the keys live in their own table): what the
 * tests of a migration insert first, under the payments and rows they write for the step under test.
 */
export function merchantRow(id: string, at: string): Insertable<MerchantsTable> {
  return {
    id,
    name: 'Shop',
    wallet_address: null,
    webhook_url: null,
    webhook_secret: 'whsec',
    previous_webhook_secret: null,
    previous_webhook_secret_until: null,
    commission_bps: 100,
    underpayment_tolerance_bps: 0,
    status: 'active',
    created_at: at,
    updated_at: at,
  };
}

/**
 * A payment's row as written before migration 0039 (no `txid_chain_id` yet), for the tests of earlier
 * migrations, which insert today's rows into a database migrated only up to the migration they test.
 */
export function paymentRowBefore0039(payment: Payment) {
  const { txid_chain_id: _, ...row } = paymentRowBefore0040(payment);
  return row;
}

/** A payment's row as written before migration 0040 (no `title`, `description` or `line_items` yet). */
export function paymentRowBefore0040(payment: Payment) {
  const { title: _t, description: _d, line_items: _l, ...row } = paymentRowBefore0042(payment);
  return row;
}

/** A payment's row as written before migration 0042 (no `reference` yet). */
export function paymentRowBefore0042(payment: Payment) {
  const { reference: _, ...row } = paymentRow(payment);
  return row;
}

/**
 * An empty database migrated up to `name` and no further, with its migrator for the step under test (the tests of
 * a migration write rows as they were before it, then migrate to the latest).
 */
export async function databaseMigratedTo(dialect: DialectName, name: string) {
  const empty = await createEmptyDatabase(dialect);
  const handle = openDatabase(empty.url);
  const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(name);
  if (error !== undefined) {
    await handle.close();
    await empty.drop();
    throw error;
  }
  return { handle, migrator, drop: empty.drop };
}
