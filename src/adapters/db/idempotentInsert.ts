import type { OutboxEvent } from '../../app/chain/ports.ts';
import type { IdempotentCreate, InsertOutcome } from '../../app/subscriptions/ports.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import type { Db } from './db.ts';
import { insertOutboxEvent } from './outbox.ts';

// The creates of plans and subscriptions, keyed on their own rows (decision 0060).

/**
 * An idempotent insert: the row, or (its key already used by this merchant and mode) the row that key made. The
 * unique index on (merchant, mode, key) decides between two requests racing with one key. `events` are written
 * with the row, in its transaction, only when it is inserted.
 */
export async function insertOnce<T extends { readonly merchantId: string; readonly mode: KeyMode }>(
  db: Db,
  table: 'subscription_plans' | 'subscriptions',
  entity: T,
  row: Record<string, unknown>,
  idempotency: IdempotentCreate | undefined,
  read: (id: string) => Promise<T | undefined>,
  events: readonly OutboxEvent[] = [],
): Promise<InsertOutcome<T>> {
  const keyed = {
    ...row,
    idempotency_key: idempotency?.key ?? null,
    request_hash: idempotency?.requestHash ?? null,
  };
  const inserted = await db.transaction().execute(async (trx) => {
    const rows = await trx
      .insertInto(table)
      // biome-ignore lint/suspicious/noExplicitAny: the row is the table's, built by its own mapper
      .values(keyed as any)
      .onConflict((oc) => oc.columns(['merchant_id', 'mode', 'idempotency_key']).doNothing())
      .returning('id')
      .execute();
    if (rows.length > 0) for (const event of events) await insertOutboxEvent(trx, event);
    return rows;
  });
  if (inserted.length > 0 || !idempotency) return { kind: 'inserted', row: entity };
  const earlier = await db
    .selectFrom(table)
    .select(['id', 'request_hash'])
    .where('merchant_id', '=', entity.merchantId)
    .where('mode', '=', entity.mode)
    .where('idempotency_key', '=', idempotency.key)
    .executeTakeFirstOrThrow();
  const found = await read(earlier.id);
  if (!found) throw new Error(`idempotency key names a missing ${table} row ${earlier.id}`);
  return { kind: 'replay', row: found, requestHash: earlier.request_hash };
}
