import type { RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { overviewRepository } from '../../src/adapters/db/overviewRepository.ts';
import { refundRepository } from '../../src/adapters/db/refundRepository.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { planOfLast, recordingHandle } from '../helpers/queryPlan.ts';

/**
 * A merchant's home page (decision 0026) reads what it shows through indexes, whatever the merchant's history:
 * this pins the plan of each query the overview repository sends, on each database, as its EXPLAIN says.
 */
describe.each(dialects)('merchant home plans on %s', (dialect) => {
  let database: TestDatabase;
  let sent: RootOperationNode[];
  let recording: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    sent = [];
    recording = recordingHandle(database, sent);
  });
  afterAll(() => database?.drop());

  const overview = () => overviewRepository(recording.db);

  it('sums a window of paid payments on payments_merchant_mode_paid (migration 0026)', async () => {
    await overview().paidBetween('merchant', 'live', new Date('2026-11-01'), new Date('2026-11-21'));
    const plan = await planOfLast(database, sent);
    expect(plan).toContain('payments_merchant_mode_paid');
    if (dialect === 'sqlite')
      expect(plan).toMatch(/merchant_id=\? AND mode=\? AND paid_at>\? AND paid_at<\?/);
  });

  it("sums the chart's days of paid payments on payments_merchant_mode_paid too", async () => {
    await overview().paidByDay('merchant', 'live', new Date('2026-10-23'), new Date('2026-11-22'));
    const plan = await planOfLast(database, sent);
    expect(plan).toContain('payments_merchant_mode_paid');
    expect(plan).not.toMatch(dialect === 'sqlite' ? /SCAN payments\b(?! USING)/ : /Seq Scan/);
  });

  it('finds delayed payouts on the partial payments_merchant_payout_blocked (migration 0026)', async () => {
    await overview().waiting('merchant', 'live', 'payout_delayed', 100);
    expect(await planOfLast(database, sent)).toContain('payments_merchant_payout_blocked');
  });

  it('finds refunds awaiting funds on refunds_announced, their deposits by primary key', async () => {
    await overview().waiting('merchant', 'live', 'refund_awaiting_funds', 100);
    const plan = await planOfLast(database, sent);
    expect(plan).toContain('refunds_announced');
    expect(plan).not.toMatch(dialect === 'sqlite' ? /SCAN (d|payments)\b(?! USING)/ : /Seq Scan/);
  });

  it('finds failing webhooks on the partial events_merchant_undelivered (migration 0026)', async () => {
    await overview().waiting('merchant', 'live', 'webhook_failing', 100);
    const plan = await planOfLast(database, sent);
    expect(plan).toContain('events_merchant_undelivered');
    expect(plan).not.toMatch(dialect === 'sqlite' ? /SCAN (e|events)\b(?! USING)/ : /Seq Scan/);
  });

  it('reads what a page of payments had refunded on refunds_payment', async () => {
    await refundRepository(recording).sentByPayment(['a', 'b']);
    const plan = await planOfLast(database, sent);
    expect(plan).toContain('refunds_payment');
    expect(plan).not.toMatch(dialect === 'sqlite' ? /SCAN (r|refunds)\b(?! USING)/ : /Seq Scan/);
  });
});
