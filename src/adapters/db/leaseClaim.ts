import { type SelectQueryBuilder, sql } from 'kysely';
import type { DialectName } from './db.ts';

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
