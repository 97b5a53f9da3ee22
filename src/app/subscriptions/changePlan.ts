import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { PlanChange } from '../../domain/subscription.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { type RenewalDeps, renewNow } from './renewal.ts';
import { type ShownSubscription, showSubscription } from './subscriptions.ts';

/**
 * The first period a plan change asked for now bills: the next period, or the one after it when the next one's
 * payment is already made (its price is what the customer was sent; a period is billed once).
 */
export function firstChangedPeriod(currentPeriod: number, billedPeriods: readonly number[]): number {
  const lastBilled = billedPeriods.reduce((max, period) => Math.max(max, period), 0);
  return Math.max(currentPeriod + 1, lastBilled + 1);
}

/** Why a plan may not replace another: the calendar (anchor and interval) stays the subscription's. */
function refusal(current: SubscriptionPlan, next: SubscriptionPlan): string | undefined {
  if (next.archivedAt !== null) return 'This plan is archived: it takes no new subscribers';
  if (next.interval.unit !== current.interval.unit || next.interval.count !== current.interval.count)
    return "A plan change keeps the subscription's calendar: the new plan must have the same interval";
  return undefined;
}

/**
 * Changes a running subscription's plan from its next period on (decision 0062): the periods already billed
 * keep their price; the renewal job bills the next ones with the new plan and makes it the subscription's plan
 * once the first of them starts. Asking for the subscription's own plan withdraws a pending change; asking
 * again replaces it, until the change's first period is billed: that period's payment was sent at the new plan's
 * price, so the change stands until the period starts (409 until then). A canceled or ended subscription, or one
 * whose cancellation is set, is not changed (409).
 */
export async function changeSubscriptionPlan(
  deps: RenewalDeps,
  merchantId: string,
  mode: KeyMode,
  subscriptionId: string,
  planIdInput: string | undefined,
): Promise<ShownSubscription> {
  const planId = planIdInput?.trim().toLowerCase();
  if (!planId) throw new ValidationError('plan_id', 'is required');
  const found = await showSubscription(deps, merchantId, mode, subscriptionId);
  // A change whose first period has started becomes the plan first (when no worker is looking at it now).
  if (found.subscription.planChange) await renewNow(deps, found.subscription.id);
  const current = await showSubscription(deps, merchantId, mode, subscriptionId);
  const { subscription, plan, state } = current;
  if (state.status === 'canceled' || state.status === 'ended' || subscription.cancelAt !== null)
    throw new PaylinkError('CONFLICT', 'This subscription is canceled or ending: its plan cannot change');
  const pending = subscription.planChange;
  if (pending && current.periods.some((p) => p.period >= pending.fromPeriod))
    throw new PaylinkError(
      'CONFLICT',
      `Period ${pending.fromPeriod} is already billed with the new plan: the change stands until it starts`,
    );
  let change: PlanChange | null = null;
  if (planId !== plan.id) {
    const next = await deps.subscriptions.findPlan(merchantId, planId, mode);
    if (!next) throw new PaylinkError('NOT_FOUND', 'Plan not found');
    const refused = refusal(plan, next);
    if (refused) throw new PaylinkError('CONFLICT', refused);
    const fromPeriod = firstChangedPeriod(
      state.period,
      current.periods.map((p) => p.period),
    );
    if (plan.periods !== null && fromPeriod > plan.periods)
      throw new PaylinkError('CONFLICT', 'This subscription has no period left to change');
    change = { planId: next.id, fromPeriod };
  }
  await deps.subscriptions.setPlanChange(subscription.id, change, deps.clock.now());
  await renewNow(deps, subscription.id);
  return showSubscription(deps, merchantId, mode, subscription.id);
}
