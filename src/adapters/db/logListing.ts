import { type SelectQueryBuilder, sql } from 'kysely';

/**
 * The order every log lists in (webhook events, e-mail messages): newest first, the id breaking ties between
 * rows written in the same millisecond, at most `limit`.
 */
export function newestFirst<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  return query.orderBy(sql.ref('created_at'), 'desc').orderBy(sql.ref('id'), 'desc').limit(limit);
}
