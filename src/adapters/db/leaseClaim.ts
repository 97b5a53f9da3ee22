import { type SelectQueryBuilder, sql } from 'kysely';
import type { Db, DialectName } from './db.ts';

/**
 * A queue's claim made `now`: the time it reads due rows at and the end of the lease it takes, as stored (ISO
 * text). A limit or lease out of range is the caller's bug, not a state of the queue.
 */
export function leaseWindow(
  now: Date,
  limit: number,
  maxLimit: number,
  leaseMs: number,
): { nowText: string; leasedUntil: string } {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxLimit) throw new RangeError('bad claim limit');
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1) throw new RangeError('bad lease');
  return { nowText: now.toISOString(), leasedUntil: new Date(now.getTime() + leaseMs).toISOString() };
}

/**
 * A queue's due rows as its claim takes them: oldest first (the id breaking ties), at most `limit`.
 * PostgreSQL: rows another worker is claiming right now are skipped, not waited for. SQLite has one writer at
 * a time, and the claim's UPDATE is its transaction's first statement, so it takes the write lock before it
 * reads: two claims cannot interleave.
 */
export function claimable<DB, TB extends keyof DB, O>(
  due: SelectQueryBuilder<DB, TB, O>,
  limit: number,
  dialect: DialectName,
): SelectQueryBuilder<DB, TB, O> {
  const oldestFirst = due.orderBy(sql.ref('created_at')).orderBy(sql.ref('id')).limit(limit);
  return dialect === 'postgres' ? oldestFirst.forUpdate().skipLocked() : oldestFirst;
}

/** A queue that workers claim rows of: its table, and the status column and value of a row a worker holds. */
export interface LeasedQueue {
  readonly table: 'events' | 'email_messages' | 'webhook_deliveries';
  readonly inFlight: { readonly column: 'delivery_status' | 'status'; readonly value: string };
}

/**
 * The claim's UPDATE: leases the queue's due rows (`claimable`) to this worker until `leasedUntil`, marks them in
 * flight and counts the attempt it is about to make; their ids. Written once for every queue (webhooks, e-mail).
 */
export async function leaseDue<DB, TB extends keyof DB, O>(
  trx: Db,
  queue: LeasedQueue,
  due: SelectQueryBuilder<DB, TB, O>,
  claim: { readonly limit: number; readonly dialect: DialectName; readonly leasedUntil: string },
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`update ${sql.table(queue.table)}
    set ${sql.ref(queue.inFlight.column)} = ${queue.inFlight.value}, claimed_until = ${claim.leasedUntil},
      attempt_count = attempt_count + 1
    where id in ${claimable(due, claim.limit, claim.dialect)}
    returning id`.execute(trx);
  return rows.map((row) => row.id);
}
