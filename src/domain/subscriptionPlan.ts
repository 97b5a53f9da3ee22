import type { KeyMode } from './credentials.ts';
import { checkEvery, ValidationError } from './errors.ts';
import { type Money, parsePrice } from './money.ts';
import {
  DAY_MS,
  INTERVAL_UNITS,
  type Interval,
  type IntervalUnit,
  MAX_INTERVAL_COUNT,
} from './subscriptionPeriods.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_TITLE_LENGTH, optionalShownText } from './text.ts';

/**
 * What a merchant sells by the period (decision 0060). A plan never changes once made: its subscribers signed
 * up to its terms. A merchant archives it (no new subscriptions) and makes another.
 */
export interface SubscriptionPlan {
  readonly id: string;
  readonly merchantId: string;
  /** The mode of the key that made it: its subscriptions, and their payments, are of this mode too. */
  readonly mode: KeyMode;
  readonly name: string;
  readonly description: string | null;
  /** Each period's price, in fiat (converted at each period's payment, its rate locked then) or USDC. */
  readonly price: Money;
  readonly interval: Interval;
  /** Days before the first period starts; 0: the first period starts, and is due, at once. */
  readonly trialDays: number;
  /** Days after a period's due moment its payment may still be made before the subscription is canceled. */
  readonly graceDays: number;
  /** How many periods a subscription lasts; null: until canceled. */
  readonly periods: number | null;
  readonly archivedAt: Date | null;
  readonly createdAt: Date;
}

export const MAX_TRIAL_DAYS = 365;
export const MAX_GRACE_DAYS = 60;
export const DEFAULT_GRACE_DAYS = 3;
export const MAX_PLAN_PERIODS = 1_000;

/** A plan as a client sends it: amounts as exact decimal text, counts as integer text. */
export interface PlanInput {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly amount?: string | undefined;
  readonly currency?: string | undefined;
  readonly intervalUnit?: string | undefined;
  readonly intervalCount?: string | undefined;
  readonly trialDays?: string | undefined;
  readonly graceDays?: string | undefined;
  readonly periods?: string | undefined;
}

export type PlanTerms = Pick<
  SubscriptionPlan,
  'name' | 'description' | 'price' | 'interval' | 'trialDays' | 'graceDays' | 'periods'
>;

/** A plan's terms, every field at fault named in one answer. */
export function parsePlanInput(input: PlanInput): PlanTerms {
  const [name, description, price, interval, trialDays, graceDays, periods] = checkEvery<
    [string, string | null, Money, Interval, number, number, number | null]
  >([
    () => {
      const name = optionalShownText('name', input.name, MAX_TITLE_LENGTH);
      if (name === null) throw new ValidationError('name', 'is required');
      return name;
    },
    () => optionalShownText('description', input.description, MAX_DESCRIPTION_LENGTH),
    () => {
      if (input.amount === undefined) throw new ValidationError('amount', 'is required');
      return parsePrice(input.amount, input.currency);
    },
    () => parseInterval(input.intervalUnit, input.intervalCount),
    () => wholeNumber('trial_days', input.trialDays, 0, MAX_TRIAL_DAYS) ?? 0,
    () => wholeNumber('grace_days', input.graceDays, 0, MAX_GRACE_DAYS) ?? DEFAULT_GRACE_DAYS,
    () => wholeNumber('periods', input.periods, 1, MAX_PLAN_PERIODS) ?? null,
  ]);
  return { name, description, price, interval, trialDays, graceDays, periods };
}

function parseInterval(unitInput: string | undefined, countInput: string | undefined): Interval {
  const [unit] = checkEvery<[IntervalUnit]>([
    () => {
      const unit = unitInput?.trim();
      if (!unit || !(INTERVAL_UNITS as readonly string[]).includes(unit))
        throw new ValidationError('interval', `must be one of ${INTERVAL_UNITS.join(', ')}`);
      return unit as IntervalUnit;
    },
  ]);
  const count = wholeNumber('interval_count', countInput, 1, MAX_INTERVAL_COUNT[unit]) ?? 1;
  return { unit, count };
}

/** An integer from `min` to `max` sent as text; undefined when not sent. */
export function wholeNumber(
  field: string,
  input: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (input === undefined) return undefined;
  const message = `must be an integer from ${min} to ${max}`;
  if (!/^\d{1,9}$/.test(input.trim())) throw new ValidationError(field, message);
  const value = Number(input.trim());
  if (value < min || value > max) throw new ValidationError(field, message);
  return value;
}

export const daysMs = (days: number): number => days * DAY_MS;
