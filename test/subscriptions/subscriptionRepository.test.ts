import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { subscriptionRepository } from '../../src/adapters/db/subscriptionRepository.ts';
import type { SubscriptionStore } from '../../src/app/subscriptions/ports.ts';
import { findCurrency } from '../../src/domain/currencies.ts';
import type { Subscription } from '../../src/domain/subscription.ts';
import type { SubscriptionPlan } from '../../src/domain/subscriptionPlan.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { countRows, createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';

/**
 * Plans and subscriptions as stored on each dialect (migration 0048): idempotent creates answer the row their
 * key made, one payment per period however many insert it, the renewal job's lease, a cancellation that never
 * moves a sooner one later, and the release's events in its transaction.
 */
const EUR = findCurrency('EUR')!;
const T0 = new Date('2027-01-31T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function plan(n: number, overrides: Partial<SubscriptionPlan> = {}): SubscriptionPlan {
  return {
    id: `pln_${n}`,
    merchantId: 'mch_1',
    mode: 'live',
    name: `Plan ${n}`,
    description: null,
    price: { currency: EUR, minorUnits: 990n },
    interval: { unit: 'month', count: 1 },
    trialDays: 0,
    graceDays: 3,
    periods: null,
    archivedAt: null,
    createdAt: at(n),
    ...overrides,
  };
}

function subscription(n: number, overrides: Partial<Subscription> = {}): Subscription {
  return {
    id: `sub_${n}`,
    merchantId: 'mch_1',
    mode: 'live',
    planId: 'pln_1',
    customerEmail: 'ada@example.com',
    customerWallet: null,
    language: 'fr',
    startedAt: T0,
    anchor: T0,
    cancelAt: null,
    canceledBy: null,
    announcedStatus: 'past_due',
    createdAt: at(n),
    updatedAt: at(n),
    portalToken: `token-${n}`,
    planChange: null,
    ...overrides,
  };
}

describe.each(dialects)('subscriptions stored on %s', (dialect) => {
  let database: TestDatabase;
  let store: SubscriptionStore;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await database.handle.db.insertInto('merchants').values(merchantRow(testMerchant())).execute();
    store = subscriptionRepository(database.handle);
  });
  afterAll(() => database.drop());

  it('keeps a plan whole and answers a repeated key with the first plan and its body’s hash', async () => {
    const first = plan(1, { periods: 12, trialDays: 14, description: 'Monthly' });
    expect(await store.insertPlan(first, { key: 'k1', requestHash: 'h1' })).toEqual({
      kind: 'inserted',
      row: first,
    });
    expect(await store.findPlan('mch_1', 'pln_1', 'live')).toEqual(first);
    expect(await store.findPlan('mch_1', 'pln_1', 'test')).toBeUndefined();
    const again = await store.insertPlan(plan(9), { key: 'k1', requestHash: 'h2' });
    expect(again).toEqual({ kind: 'replay', row: first, requestHash: 'h1' });
    // The same key in test mode is another key.
    expect((await store.insertPlan(plan(8, { mode: 'test' }), { key: 'k1', requestHash: 'h2' })).kind).toBe(
      'inserted',
    );
    await store.insertPlan(plan(2));
    await store.insertPlan(plan(3));
    const page = await store.listPlans({ merchantId: 'mch_1', mode: 'live', limit: 2 });
    expect(page.map((p) => p.id)).toEqual(['pln_3', 'pln_2']);
    const next = await store.listPlans({ merchantId: 'mch_1', mode: 'live', limit: 5, after: page[1] });
    expect(next.map((p) => p.id)).toEqual(['pln_1']);
  });

  it('archives a plan once: a second archive keeps the first moment', async () => {
    expect((await store.archivePlan('mch_1', 'pln_2', 'live', at(100)))?.archivedAt).toEqual(at(100));
    expect((await store.archivePlan('mch_1', 'pln_2', 'live', at(200)))?.archivedAt).toEqual(at(100));
    expect(await store.archivePlan('mch_1', 'pln_2', 'test', at(200))).toBeUndefined();
  });

  it('stores one payment per period, with its e-mail, whoever inserts it', async () => {
    const sub = subscription(1);
    await store.insertSubscription(sub, T0, { key: 's1', requestHash: 'h' });
    const payment = testPayment(1, { metadata: { subscription_id: 'sub_1', subscription_period: '1' } });
    const email = {
      id: 'eml_1',
      merchantId: 'mch_1',
      paymentId: payment.id,
      refundId: null,
      kind: 'payment_request' as const,
      recipient: 'ada@example.com',
      language: 'fr',
      subject: 'Paiement',
      html: '<p>x</p>',
      text: 'x',
      messageId: '<m1@example.com>',
      createdAt: T0,
    };
    expect(await store.insertPeriodPayment(payment, 'sub_1', 1, email)).toBe(true);
    const racer = testPayment(2);
    expect(await store.insertPeriodPayment(racer, 'sub_1', 1, undefined)).toBe(false);
    expect(await countRows(database.handle.db, 'payments')).toBe(1);
    expect(await countRows(database.handle.db, 'email_messages')).toBe(1);
    const record = await store.findForMerchant('mch_1', 'sub_1', 'live');
    expect(record?.subscription).toEqual(sub);
    expect(record?.plan.id).toBe('pln_1');
    expect(record?.periods).toEqual([
      {
        period: 1,
        paymentId: payment.id,
        paymentStatus: 'pending',
        paidAt: null,
        remindedAt: null,
        announced: 'billed',
      },
    ]);
    expect(await store.remind('sub_1', 1, undefined, at(5))).toBe(true);
    expect(await store.remind('sub_1', 1, undefined, at(6))).toBe(false);
    expect((await store.find('sub_1'))?.periods[0]?.remindedAt).toEqual(at(5));
  });

  it('leases what is due to one claimer until the lease ends or the release', async () => {
    await store.insertSubscription(subscription(2), at(1_000));
    expect(await store.claimDue(at(999), 10, 60_000)).toEqual(['sub_1']);
    expect(await store.claimDue(at(1_000), 10, 60_000)).toEqual(['sub_2']);
    expect(await store.claimDue(at(59_999), 10, 60_000)).toEqual([]);
    expect(await store.claimDue(at(60_999), 10, 60_000)).toEqual(['sub_1']);
    await store.release(
      'sub_2',
      {
        nextCheckAt: null,
        seenUpdatedAt: at(2),
        announcedStatus: 'canceled',
        events: [],
        periods: [],
      },
      at(2_000),
    );
    expect(await store.claimDue(at(10_000_000), 10, 60_000)).toEqual(['sub_1']);
    expect((await store.find('sub_2'))?.subscription.announcedStatus).toBe('canceled');
  });

  it('a cancellation at once wins over one at period end, never the other way', async () => {
    const later = at(30 * 86_400_000);
    await store.cancel('sub_1', { at: later, by: 'merchant' }, at(10));
    await store.cancel('sub_1', { at: at(20), by: 'customer' }, at(20));
    const record = await store.cancel('sub_1', { at: later, by: 'merchant' }, at(30));
    expect(record?.subscription).toMatchObject({ cancelAt: at(20), canceledBy: 'customer' });
  });

  it('writes the release’s events with it', async () => {
    const [period] = (await store.find('sub_1'))?.periods ?? [];
    await store.release(
      'sub_1',
      {
        nextCheckAt: at(50),
        seenUpdatedAt: at(1),
        announcedStatus: 'canceled',
        periods: [{ period: 1, announced: 'failed' }],
        events: [
          {
            id: 'evt_sub_1',
            paymentId: period!.paymentId,
            merchantId: 'mch_1',
            type: 'subscription.canceled',
            payload: '{}',
            createdAt: at(40),
          },
        ],
      },
      at(40),
    );
    const events = await database.handle.db.selectFrom('events').select(['type', 'sequence']).execute();
    expect(events).toEqual([{ type: 'subscription.canceled', sequence: 1 }]);
    expect((await store.find('sub_1'))?.periods[0]?.announced).toBe('failed');
  });
});
