import type { RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { paymentRepository } from '../../src/adapters/db/paymentRepository.ts';
import { PaymentReferenceTaken, type PaymentStore } from '../../src/app/payments/ports.ts';
import { searchPayments } from '../../src/app/payments/searchPayments.ts';
import { paymentReference } from '../../src/domain/paymentReference.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { databaseMigratedTo, paymentRowBefore0042 } from '../helpers/migrationRows.ts';
import { planOfLast, recordingHandle } from '../helpers/queryPlan.ts';

/**
 * The dashboard's search (issue 38) finds a payment by its short reference, its customer's e-mail and its order
 * id, besides its id, deposit address and transaction hash, each on an index (migration 0042), on both databases;
 * a merchant never finds another's, and a reference is unique per merchant.
 */
describe.each(dialects)('payment search on %s', (dialect) => {
  let database: TestDatabase;
  let sent: RootOperationNode[];
  let store: PaymentStore;
  const mine = testPayment(1, { customerEmail: 'Ada.Lovelace@Example.com', orderId: 'order-1' });
  const mineAgain = testPayment(2, {
    customerEmail: 'ada.lovelace@example.com',
    mode: 'test',
    createdAt: new Date('2026-01-02T00:00:00.000Z'),
  });
  const theirs = testPayment(3, {
    merchantId: 'mch_2',
    customerEmail: 'ada.lovelace@example.com',
    orderId: 'order-1',
  });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    sent = [];
    await database.handle.db
      .insertInto('merchants')
      .values([merchantRow(testMerchant()), merchantRow(testMerchant({ id: 'mch_2', name: 'Other' }))])
      .execute();
    store = paymentRepository(recordingHandle(database, sent));
    for (const payment of [mine, mineAgain, theirs]) await store.insert(payment);
  });
  afterAll(() => database?.drop());

  const search = (merchantId: string | null, term: string) =>
    searchPayments({ payments: store }, merchantId, term);

  it('finds a payment by its reference however a person types it, and stores the reference the id gives', async () => {
    expect(mine.reference).toBe(paymentReference(mine.id));
    expect(await search('mch_1', mine.reference)).toEqual([mine.id]);
    expect(await search('mch_1', mine.reference.toLowerCase().replaceAll('-', ''))).toEqual([mine.id]);
    expect((await store.findById(mine.id))?.reference).toBe(mine.reference);
    // Another merchant's reference names nothing of this one's.
    expect(await search('mch_1', theirs.reference)).toEqual([]);
    expect(await search(null, theirs.reference)).toEqual([theirs.id]);
  });

  it("finds every payment of a customer's e-mail, any letter case, newest first, within the merchant", async () => {
    expect(await search('mch_1', 'ADA.lovelace@example.COM')).toEqual([mineAgain.id, mine.id]);
    expect(await search(null, 'ada.lovelace@example.com')).toHaveLength(3);
    expect(await search('mch_1', 'nobody@example.com')).toEqual([]);
  });

  it('finds by order id within one merchant only', async () => {
    expect(await search('mch_1', 'order-1')).toEqual([mine.id]);
    expect(await search('mch_2', 'order-1')).toEqual([theirs.id]);
    // Over every merchant an order id means nothing: the operator is told what a term may be.
    await expect(search(null, 'order-1')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', field: 'q' });
  });

  it('refuses a second payment of the merchant with a reference it already has, writing nothing', async () => {
    const clash = testPayment(4, { reference: mine.reference });
    await expect(store.insert(clash)).rejects.toBeInstanceOf(PaymentReferenceTaken);
    expect(await store.findById(clash.id)).toBeUndefined();
    // Another merchant may have the same reference.
    const elsewhere = testPayment(5, { merchantId: 'mch_2', reference: mine.reference });
    await store.insert(elsewhere);
    expect(await search('mch_2', mine.reference)).toEqual([elsewhere.id]);
  });

  it('reads a reference on payments_reference_merchant (migration 0042)', async () => {
    await store.searchForMerchant('mch_1', { reference: mine.reference });
    expect(await planOfLast(database, sent)).toMatch(indexed(dialect, 'payments_reference_merchant'));
    await store.searchForMerchant(null, { reference: mine.reference });
    expect(await planOfLast(database, sent)).toMatch(indexed(dialect, 'payments_reference_merchant'));
  });

  it("reads a customer's e-mail on payments_customer_email_merchant (migration 0042)", async () => {
    await store.searchForMerchant('mch_1', { customerEmail: 'a@example.com' });
    expect(await planOfLast(database, sent)).toMatch(indexed(dialect, 'payments_customer_email_merchant'));
    await store.searchForMerchant(null, { customerEmail: 'a@example.com' });
    expect(await planOfLast(database, sent)).toMatch(indexed(dialect, 'payments_customer_email_merchant'));
  });

  it("reads an order id on the merchant's payments_merchant_order", async () => {
    await store.searchForMerchant('mch_1', { orderId: 'order-1' });
    const plan = await planOfLast(database, sent);
    // PostgreSQL, on a nearly empty table, may take another index led by the merchant: a lookup all the same.
    if (dialect === 'sqlite') expect(plan).toMatch(indexed(dialect, 'payments_merchant_order'));
    else
      expect(plan).toMatch(
        /Index Scan using payments_merchant_\w+ on payments[^\n]*\n\s+Index Cond: \(merchant_id = /,
      );
  });
});

describe.each(dialects)('migration 0042 on %s', (dialect) => {
  it("gives the payments made before their id's reference, a merchant's clash none", async () => {
    const { handle, migrator, drop } = await databaseMigratedTo(dialect, '0040_payment_items');
    try {
      await handle.db.insertInto('merchants').values(merchantRow(testMerchant())).execute();
      const first = testPayment(1);
      // The same last 40 bits: the same reference, for the same merchant.
      const clash = testPayment(2, { id: `00000000-0000-4000-8001-${first.id.slice(-12)}` });
      await handle.db
        .insertInto('payments')
        .values([paymentRowBefore0042(first), paymentRowBefore0042(clash)])
        .execute();
      const { error } = await migrator.migrateToLatest();
      expect(error).toBeUndefined();
      const rows = await handle.db.selectFrom('payments').select(['id', 'reference']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: first.id, reference: paymentReference(first.id) },
        { id: clash.id, reference: null },
      ]);
    } finally {
      await handle.close();
      await drop();
    }
  });
});

/** A lookup on the index, as each dialect's EXPLAIN says it (never a scan of the table). */
function indexed(dialect: string, index: string): RegExp {
  return dialect === 'sqlite'
    ? new RegExp(`SEARCH payments USING (COVERING )?INDEX ${index} \\(`)
    : new RegExp(`Index (Only )?Scan using ${index} on payments`);
}
