import type { RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { paymentRepository } from '../../src/adapters/db/paymentRepository.ts';
import { refundRepository } from '../../src/adapters/db/refundRepository.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { planOfLast, recordingHandle } from '../helpers/queryPlan.ts';

/**
 * A page after the first of a merchant's payments or refunds (newest first, the listings and the CSV exports)
 * must be a range on the merchant's (merchant, mode, created_at) index, not a walk down from its newest row: that
 * is what keeps the millionth row of an export as cheap as the first. The condition that gives the planner the
 * range is written once (src/adapters/db/keyset.ts); this pins the plan of the queries the repositories send.
 */
const AFTER = { createdAt: new Date('2026-01-01T00:00:00.000Z'), id: '00000000-0000-4000-8000-000000000001' };

describe.each(dialects)('keyset pages on %s', (dialect) => {
  let database: TestDatabase;
  let sent: RootOperationNode[];
  let recording: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    sent = [];
    recording = recordingHandle(database, sent);
  });
  afterAll(() => database?.drop());

  it("a page of a merchant's payments is a range on payments_merchant_mode_created", async () => {
    await paymentRepository(recording).listForMerchant({
      merchantId: 'merchant',
      mode: 'live',
      after: AFTER,
      limit: 100,
    });
    expect(await planOfLast(database, sent)).toMatch(rangeOn(dialect, 'payments_merchant_mode_created'));
  });

  it("a page of a merchant's refunds is a range on refunds_merchant_mode_created", async () => {
    await refundRepository(recording).listForMerchant({
      merchantId: 'merchant',
      mode: 'live',
      after: AFTER,
      limit: 100,
    });
    expect(await planOfLast(database, sent)).toMatch(rangeOn(dialect, 'refunds_merchant_mode_created'));
  });
});

/**
 * The index searched with created_at bounded, as each dialect's EXPLAIN says it. PostgreSQL, on nearly empty
 * tables, may take the index of every merchant's rows of the mode instead (payments_mode_created): a range on
 * created_at just the same.
 */
function rangeOn(dialect: string, index: string): RegExp {
  const table = index.slice(0, index.indexOf('_'));
  return dialect === 'sqlite'
    ? new RegExp(`USING INDEX ${index} \\(merchant_id=\\? AND mode=\\? AND created_at<\\?\\)`)
    : new RegExp(
        `using ${table}_(merchant_)?mode_created on ${table}[^\\n]*\\n\\s+Index Cond: \\([^\\n]*created_at <= `,
      );
}
