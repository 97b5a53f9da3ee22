import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { KeysetPosition } from '../../app/shared/keysetPage.ts';

/**
 * The rows after `after` in a newest-first listing ordered by (created_at, id): a keyset page of payments,
 * refunds, links or events. The first condition is implied by the second; it is there for the planner, which
 * turns it into a range on the (…, created_at) index: without it SQLite reads the index from the newest row at
 * every page (an export of a million rows took minutes instead of seconds).
 */
export function olderThan(after: KeysetPosition): RawBuilder<SqlBool> {
  const createdAt = after.createdAt.toISOString();
  return sql<SqlBool>`created_at <= ${createdAt} and (created_at < ${createdAt} or (created_at = ${createdAt} and id < ${after.id}))`;
}
