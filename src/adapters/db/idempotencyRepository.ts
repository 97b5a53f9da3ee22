import type { IdempotencyStore } from '../../app/payments/ports.ts';
import type { DatabaseHandle } from './database.ts';
import { claimIdempotencyKey, releaseIdempotencyKey } from './idempotencyKeys.ts';

/**
 * On PostgreSQL, the statements below on the pool. On SQLite, on the connection a create's other writes are
 * made on (sqliteWriter.ts): a claim is a write, and made on the request thread's connection it would wait
 * there, stopping every request, while the writer commits.
 */
export function idempotencyRepository(handle: DatabaseHandle): IdempotencyStore {
  const { db, sqliteWriter } = handle;
  if (sqliteWriter) {
    return {
      claim: (request) => sqliteWriter.claimIdempotencyKey(request),
      release: (merchantId, mode, key) => sqliteWriter.releaseIdempotencyKey({ merchantId, mode, key }),
    };
  }
  return {
    claim: (request) => claimIdempotencyKey(db, request),
    release: (merchantId, mode, key) => releaseIdempotencyKey(db, { merchantId, mode, key }),
  };
}
