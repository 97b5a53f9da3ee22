import type { KeyMode } from '../../domain/credentials.ts';
import type { Clock } from '../shared/ports.ts';
import {
  type DailyPaid,
  type MerchantOverviewStore,
  type PaidTotal,
  WAITING_KINDS,
  type WaitingKind,
} from './ports.ts';

/** Waiting payments read per kind: the home page counts up to this, and the filtered list shows as many. */
export const WAITING_LIMIT = 100;

/** The days of the home page's revenue chart, today included. */
export const CHART_DAYS = 30;
const DAY_MS = 86_400_000;

export interface MerchantHome {
  readonly today: PaidTotal;
  readonly month: PaidTotal;
  /** What was paid on each of the last CHART_DAYS UTC days, oldest first, every day present (0 where none). */
  readonly days: readonly DailyPaid[];
  /** Payment ids waiting on each kind, newest first (at most WAITING_LIMIT each). */
  readonly waiting: Readonly<Record<WaitingKind, readonly string[]>>;
}

/** Midnight UTC of the clock's day, and the first of its month (decision 0026: the merchant's days are UTC's). */
export function utcWindows(now: Date): { readonly dayStart: Date; readonly monthStart: Date } {
  return {
    dayStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())),
    monthStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
  };
}

/**
 * What a merchant asks first: what was paid today and this month (UTC), and what waits on it or on the service
 * (payouts delayed, refunds awaiting its funds, webhooks its endpoint does not take).
 */
export async function merchantHome(
  deps: { readonly overview: MerchantOverviewStore; readonly clock: Clock },
  merchantId: string,
  mode: KeyMode,
): Promise<MerchantHome> {
  const now = deps.clock.now();
  // Up to the next millisecond: a payment paid at this very instant counts.
  const end = new Date(now.getTime() + 1);
  const { dayStart, monthStart } = utcWindows(now);
  const firstDay = new Date(dayStart.getTime() - (CHART_DAYS - 1) * DAY_MS);
  const [today, month, daily, ...waiting] = await Promise.all([
    deps.overview.paidBetween(merchantId, mode, dayStart, end),
    deps.overview.paidBetween(merchantId, mode, monthStart, end),
    deps.overview.paidByDay(merchantId, mode, firstDay, end),
    ...WAITING_KINDS.map((kind) => deps.overview.waiting(merchantId, mode, kind, WAITING_LIMIT)),
  ]);
  return {
    today,
    month,
    days: everyDay(firstDay, daily),
    waiting: Object.fromEntries(WAITING_KINDS.map((kind, i) => [kind, waiting[i]!])) as Record<
      WaitingKind,
      string[]
    >,
  };
}

/** The chart's days from `firstDay` on, each with what was paid on it (nothing where the store has no row). */
function everyDay(firstDay: Date, paid: readonly DailyPaid[]): DailyPaid[] {
  const byDay = new Map(paid.map((entry) => [entry.day, entry]));
  return Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = new Date(firstDay.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, count: 0, receivedBaseUnits: 0n };
  });
}
