/**
 * A subscription's status from its facts, at each boundary to the millisecond: the trial's end, a period's due
 * moment, its grace's end, a cancellation's moment, the last period's end.
 */
import { describe, expect, it } from 'vitest';
import {
  cancellationMoment,
  deriveSubscriptionState,
  graceEnd,
  type PaidPeriods,
  type PlanCalendar,
  periodsToBill,
  reminderMoment,
} from './subscription.ts';
import { periodStart } from './subscriptionPeriods.ts';

const DAY = 86_400_000;
const anchor = new Date('2027-01-31T10:00:00Z');
const plan: PlanCalendar = { interval: { unit: 'month', count: 1 }, graceDays: 3, periods: null };
const ms = (date: Date, delta: number) => new Date(date.getTime() + delta);
const none: PaidPeriods = new Map();
const open = { anchor, cancelAt: null };
const status = (
  paid: PaidPeriods,
  now: Date,
  sub: { anchor: Date; cancelAt: Date | null } = open,
  p = plan,
) => deriveSubscriptionState(sub, p, paid, now).status;

describe('trial, due and grace', () => {
  it('is trialing until the anchor, then owes its first period at once', () => {
    expect(status(none, ms(anchor, -1))).toBe('trialing');
    expect(status(none, anchor)).toBe('past_due');
  });

  it('is active from the moment the period is paid, and past due when the next period starts unpaid', () => {
    const paid = new Map([[1, ms(anchor, 5)]]);
    expect(status(paid, ms(anchor, 4))).toBe('past_due');
    expect(status(paid, ms(anchor, 5))).toBe('active');
    const second = periodStart(anchor, plan.interval, 2);
    expect(status(paid, ms(second, -1))).toBe('active');
    expect(status(paid, second)).toBe('past_due');
  });

  it('a period paid before it starts (the link came early) makes it active at its start', () => {
    const second = periodStart(anchor, plan.interval, 2);
    const paid = new Map([
      [1, anchor],
      [2, ms(second, -2 * DAY)],
    ]);
    expect(status(paid, second)).toBe('active');
  });

  it('is canceled for non-payment a millisecond after the grace’s end, the end itself still on time', () => {
    const deadline = graceEnd(anchor, plan, 1);
    expect(deadline).toEqual(ms(anchor, 3 * DAY));
    expect(status(none, deadline)).toBe('past_due');
    const lapsed = deriveSubscriptionState(open, plan, none, ms(deadline, 1));
    expect(lapsed).toMatchObject({
      status: 'canceled',
      canceledReason: 'unpaid',
      endedAt: deadline,
      period: 1,
    });
  });

  it('a payment at the grace’s end keeps it (as at a payment’s expiry); a millisecond later is too late', () => {
    const deadline = graceEnd(anchor, plan, 1);
    expect(status(new Map([[1, deadline]]), ms(deadline, 1))).toBe('active');
    expect(status(new Map([[1, ms(deadline, 1)]]), ms(deadline, 1))).toBe('canceled');
  });

  it('a lapse long ago is still dated at its own grace end', () => {
    const state = deriveSubscriptionState(
      open,
      plan,
      new Map([[1, anchor]]),
      new Date('2029-01-01T00:00:00Z'),
    );
    expect(state.endedAt).toEqual(graceEnd(anchor, plan, 2));
    expect(state.period).toBe(2);
  });

  it('with no grace, an unpaid period lapses at its due moment', () => {
    const strict = { ...plan, graceDays: 0 };
    expect(status(none, ms(anchor, -1), open, strict)).toBe('trialing');
    expect(status(none, anchor, open, strict)).toBe('past_due');
    expect(status(none, ms(anchor, 1), open, strict)).toBe('canceled');
  });
});

describe('cancellation and the end', () => {
  const paidAll: PaidPeriods = new Map([1, 2, 3].map((p) => [p, periodStart(anchor, plan.interval, p)]));

  it('takes effect at its moment exactly', () => {
    const cancelAt = ms(anchor, 10 * DAY);
    const sub = { anchor, cancelAt };
    expect(status(paidAll, ms(cancelAt, -1), sub)).toBe('active');
    expect(deriveSubscriptionState(sub, plan, paidAll, cancelAt)).toMatchObject({
      status: 'canceled',
      canceledReason: 'requested',
      endedAt: cancelAt,
    });
  });

  it('at period end means the start of the next period; during the trial, the trial’s end', () => {
    const second = periodStart(anchor, plan.interval, 2);
    expect(cancellationMoment(anchor, plan, ms(anchor, DAY), true)).toEqual(second);
    expect(cancellationMoment(anchor, plan, ms(second, -1), true)).toEqual(second);
    expect(cancellationMoment(anchor, plan, second, true)).toEqual(periodStart(anchor, plan.interval, 3));
    expect(cancellationMoment(anchor, plan, ms(anchor, -DAY), true)).toEqual(anchor);
    const now = ms(anchor, DAY);
    expect(cancellationMoment(anchor, plan, now, false)).toEqual(now);
  });

  it('a plan of three periods ends at the end of the third, paid', () => {
    const three = { ...plan, periods: 3 };
    const end = periodStart(anchor, plan.interval, 4);
    expect(status(paidAll, ms(end, -1), open, three)).toBe('active');
    expect(deriveSubscriptionState(open, three, paidAll, end)).toMatchObject({
      status: 'ended',
      period: 3,
      endedAt: end,
    });
    // A cancellation at the last period's end is the end itself, not a cancellation.
    expect(status(paidAll, end, { anchor, cancelAt: end }, three)).toBe('ended');
  });
});

describe('what push renewal bills', () => {
  const lead = 3 * DAY;
  const second = periodStart(anchor, plan.interval, 2);

  it('the first period from `lead` before the anchor, the next from `lead` before its start', () => {
    expect(periodsToBill(open, plan, none, ms(anchor, -lead - 1), lead)).toEqual([]);
    expect(periodsToBill(open, plan, none, ms(anchor, -lead), lead)).toEqual([1]);
    const paid = new Map([[1, anchor]]);
    expect(periodsToBill(open, plan, paid, ms(second, -lead - 1), lead)).toEqual([1]);
    expect(periodsToBill(open, plan, paid, ms(second, -lead), lead)).toEqual([1, 2]);
  });

  it('nothing past the last period, at or after a cancellation, or once canceled', () => {
    expect(
      periodsToBill(open, { ...plan, periods: 1 }, new Map([[1, anchor]]), ms(second, -lead), lead),
    ).toEqual([1]);
    expect(
      periodsToBill({ anchor, cancelAt: second }, plan, new Map([[1, anchor]]), ms(second, -1), lead),
    ).toEqual([1]);
    expect(periodsToBill(open, plan, none, ms(graceEnd(anchor, plan, 1), 1), lead)).toEqual([]);
  });

  it('reminds a day before the grace ends, at the due moment when the grace is a day, never without one', () => {
    expect(reminderMoment(anchor, plan, 1)).toEqual(ms(anchor, 2 * DAY));
    expect(reminderMoment(anchor, { ...plan, graceDays: 1 }, 1)).toEqual(anchor);
    expect(reminderMoment(anchor, { ...plan, graceDays: 0 }, 1)).toBeNull();
  });
});
