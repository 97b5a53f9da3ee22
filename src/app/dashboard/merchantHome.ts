import type { KeyMode } from '../../domain/credentials.ts';
import type { Clock } from '../shared/ports.ts';
import { type MerchantOverviewStore, type PaidTotal, WAITING_KINDS, type WaitingKind } from './ports.ts';

/** Waiting payments read per kind: the home page counts up to this, and the filtered list shows as many. */
export const WAITING_LIMIT = 100;

export interface MerchantHome {
  readonly today: PaidTotal;
  readonly month: PaidTotal;
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
  const [today, month, ...waiting] = await Promise.all([
    deps.overview.paidBetween(merchantId, mode, dayStart, end),
    deps.overview.paidBetween(merchantId, mode, monthStart, end),
    ...WAITING_KINDS.map((kind) => deps.overview.waiting(merchantId, mode, kind, WAITING_LIMIT)),
  ]);
  return {
    today,
    month,
    waiting: Object.fromEntries(WAITING_KINDS.map((kind, i) => [kind, waiting[i]!])) as Record<
      WaitingKind,
      string[]
    >,
  };
}
