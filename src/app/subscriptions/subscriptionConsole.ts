import { graceEnd, nextChargeAt } from '../../domain/subscription.ts';
import type { RenewalDeps } from './renewal.ts';
import { type ShownSubscription, shown } from './subscriptions.ts';

/** How many running subscriptions the operator's console reads at most (the soonest looks first). */
export const CONSOLE_LIMIT = 200;

/** A running subscription as the console lists it: when its grace ends, or when its next charge is. */
export interface ConsoleRow {
  readonly shown: ShownSubscription;
  readonly nextCharge: Date | null;
  /** The current period's grace end, for a past-due one. */
  readonly graceEnds: Date | null;
}

/**
 * The operator's view of every merchant's subscriptions (decision 0062): those past due now (a period unpaid, its
 * grace running), soonest lapse first; those whose next period is billed within the renewal lead; and every next
 * charge, soonest first. Read from the renewal job's own queue (`next_check_at`), so what is listed is what the
 * job will look at.
 */
export async function subscriptionConsole(
  deps: Pick<RenewalDeps, 'subscriptions' | 'clock' | 'renewalLeadMs'>,
) {
  const now = deps.clock.now();
  const records = await deps.subscriptions.listRunning(CONSOLE_LIMIT);
  const rows: ConsoleRow[] = records.map((record) => {
    const current = shown(record, now);
    const { state, subscription, plan } = current;
    return {
      shown: current,
      nextCharge: nextChargeAt(subscription, plan, state),
      graceEnds: state.status === 'past_due' ? graceEnd(subscription.anchor, plan, state.period) : null,
    };
  });
  const time = (d: Date | null) => d?.getTime() ?? Number.POSITIVE_INFINITY;
  const pastDue = rows
    .filter((row) => row.shown.state.status === 'past_due')
    .sort((a, b) => time(a.graceEnds) - time(b.graceEnds));
  const upcoming = rows
    .filter((row) => row.nextCharge !== null)
    .sort((a, b) => time(a.nextCharge) - time(b.nextCharge));
  const horizon = now.getTime() + deps.renewalLeadMs;
  return {
    pastDue,
    dueSoon: upcoming.filter((row) => time(row.nextCharge) <= horizon),
    next: upcoming.filter((row) => time(row.nextCharge) > horizon),
    limited: records.length >= CONSOLE_LIMIT,
  };
}
