import { PaylinkError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import type { RenewalDeps } from './renewal.ts';
import {
  cancelSubscription,
  createSubscription,
  isPortalToken,
  type ShownSubscription,
  shown,
} from './subscriptions.ts';

// The customer's side of subscriptions (decision 0062): the public subscribe page and the portal its e-mails
// link to. Whoever holds a plan's id may subscribe an address to it (as the API may); whoever holds a portal's
// token acts as that subscription's customer.

type PortalDeps = Pick<RenewalDeps, 'subscriptions' | 'merchants' | 'clock'>;

const PLAN_NOT_FOUND = () => new PaylinkError('NOT_FOUND', 'Plan not found');
const NOT_FOUND = () => new PaylinkError('NOT_FOUND', 'Subscription not found');

/** A plan as its public page shows it, with its merchant; a disabled merchant's plans are gone, as its links are. */
export async function publicPlan(
  deps: PortalDeps,
  planIdInput: string,
): Promise<{ plan: SubscriptionPlan; merchant: Merchant }> {
  const planId = planIdInput.trim().toLowerCase();
  if (!/^[0-9a-f-]{36}$/.test(planId)) throw PLAN_NOT_FOUND();
  const plan = await deps.subscriptions.findPlanById(planId);
  const merchant = plan && (await deps.merchants.find(plan.merchantId));
  if (!plan || !merchant || merchant.status !== 'active') throw PLAN_NOT_FOUND();
  return { plan, merchant };
}

/**
 * Subscribes the address typed on a plan's public page, by e-mail (push renewal): the API's create, in the
 * plan's own merchant and mode, the page's language kept for the e-mails.
 */
export async function subscribeFromPage(
  deps: RenewalDeps,
  planId: string,
  input: {
    readonly customerEmail: string | undefined;
    readonly language: string;
    /** The wallet whose signed terms will pay each period (the wallet's way, decision 0061); absent: by e-mail. */
    readonly customerWallet?: string | undefined;
  },
): Promise<ShownSubscription> {
  const { plan } = await publicPlan(deps, planId);
  const { subscription } = await createSubscription(
    deps,
    plan.merchantId,
    plan.mode,
    {
      planId: plan.id,
      customerEmail: input.customerEmail,
      customerLanguage: input.language,
      customerWallet: input.customerWallet,
    },
    undefined,
    // By wallet: its mandate pays the first period, which is therefore not e-mailed as well.
    { mandateComing: input.customerWallet !== undefined },
  );
  return subscription;
}

/** The subscription a portal's token opens, its status derived now. */
export async function portalSubscription(deps: PortalDeps, token: string): Promise<ShownSubscription> {
  if (!isPortalToken(token)) throw NOT_FOUND();
  const record = await deps.subscriptions.findByPortalToken(token);
  if (!record) throw NOT_FOUND();
  return shown(record, deps.clock.now());
}

/**
 * The customer's cancellation from the portal: at the end of the period in force (what they paid for runs to
 * its end), `canceled_by: customer`. A canceled or ended subscription answers as it is.
 */
export async function cancelFromPortal(deps: RenewalDeps, token: string): Promise<ShownSubscription> {
  const { subscription } = await portalSubscription(deps, token);
  return cancelSubscription(deps, subscription.merchantId, subscription.mode, subscription.id, {
    atPeriodEnd: true,
    by: 'customer',
  });
}
