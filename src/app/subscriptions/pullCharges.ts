import type { KeyMode } from '../../domain/credentials.ts';
import { graceEnd } from '../../domain/subscription.ts';
import { periodStart } from '../../domain/subscriptionPeriods.ts';
import { type PaymentRequestSettings, paymentRequestMessage } from '../email/paymentRequests.ts';
import { NOT_YET_SENT } from '../gasless/relayedTransaction.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import type { PaymentStore } from '../payments/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { Charge, MandateStore } from './mandatePorts.ts';
import type { SubscriptionRecord, SubscriptionStore } from './ports.ts';

/** Where a mode's subscriptions are charged: its home chain, the charger there, the token and the treasury. */
export interface PullChain {
  readonly chainId: number;
  readonly charger: string;
  readonly token: string;
  readonly treasury: string;
}

export interface PullRenewalDeps {
  readonly mandates: MandateStore;
  readonly payments: Pick<PaymentStore, 'findById'>;
  readonly subscriptions: Pick<SubscriptionStore, 'find' | 'remind'>;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly paymentRequests?: PaymentRequestSettings | undefined;
  readonly clock: Clock;
  /** Per mode, where its charges go; a mode without one has no pull renewal. */
  readonly chains: Partial<Record<KeyMode, PullChain>>;
  readonly logger?: { warn(fields: object, message: string): void } | undefined;
}

/** What the renewal job asks of pull renewal (renewal.ts's `pull`): absent, every subscription is pushed. */
export interface PullRenewal {
  /** Whether the subscription has a mandate the job charges: its periods' links are then not e-mailed ahead. */
  hasLiveMandate(subscriptionId: string): Promise<boolean>;
  /** Queues the charge of every billed period that is due, unpaid, in its grace and not charged yet. */
  queueDue(record: SubscriptionRecord, now: Date): Promise<void>;
}

export function pullRenewal(deps: PullRenewalDeps): PullRenewal {
  return {
    async hasLiveMandate(subscriptionId) {
      return (await deps.mandates.findMandate(subscriptionId))?.status === 'active';
    },
    queueDue: (record, now) => queueDueCharges(deps, record, now),
  };
}

/**
 * A charge per period due: its amount is the period's payment's own (a fiat plan's quote locked when the payment
 * was made). One above the signed cap is not made: the customer gets the period's link instead, as in push.
 */
export async function queueDueCharges(
  deps: PullRenewalDeps,
  record: SubscriptionRecord,
  now: Date,
): Promise<void> {
  const { subscription: sub, plan } = record;
  const chain = deps.chains[sub.mode];
  const mandate = await deps.mandates.findMandate(sub.id);
  if (!chain || mandate?.status !== 'active' || mandate.chainId !== chain.chainId) return;
  if (sub.cancelAt !== null && sub.cancelAt.getTime() <= now.getTime()) return;
  for (const p of record.periods) {
    if (p.paymentStatus !== 'pending') continue;
    if (periodStart(sub.anchor, plan.interval, p.period).getTime() > now.getTime()) continue;
    if (graceEnd(sub.anchor, plan, p.period).getTime() < now.getTime()) continue;
    if (await deps.mandates.findCharge(sub.id, p.period)) continue;
    const payment = await deps.payments.findById(p.paymentId);
    if (!payment) continue;
    const amount = payment.quote.usdcBaseUnits;
    if (amount > mandate.terms.cap) {
      deps.logger?.warn(
        { subscription: sub.id, period: p.period },
        "the period's amount is above the mandate's cap: its link is e-mailed instead",
      );
      await sendFallbackEmail(deps, sub.id, p.period);
      continue;
    }
    await deps.mandates.insertCharge({
      subscriptionId: sub.id,
      period: p.period,
      paymentId: p.paymentId,
      chainId: chain.chainId,
      mandateId: mandate.mandateId,
      amountBaseUnits: amount,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      ...NOT_YET_SENT,
      createdAt: now,
      updatedAt: now,
    });
  }
}

/**
 * Push as the fallback of a charge that failed: the period's link e-mailed with the portal's (once per period: the
 * reminder's mark), the subscription `past_due` by its own derivation until the period is paid, one way or the other.
 */
export async function sendFallbackEmail(
  deps: Pick<PullRenewalDeps, 'subscriptions' | 'merchants' | 'payments' | 'paymentRequests' | 'clock'>,
  subscriptionId: string,
  period: number,
): Promise<boolean> {
  const record = await deps.subscriptions.find(subscriptionId);
  const paymentId = record?.periods.find((p) => p.period === period)?.paymentId;
  if (!record || !paymentId) return false;
  const now = deps.clock.now();
  const merchant = await deps.merchants.find(record.subscription.merchantId);
  const payment = await deps.payments.findById(paymentId);
  const email =
    deps.paymentRequests && merchant && payment
      ? paymentRequestMessage(deps.paymentRequests, merchant, payment, now, record.subscription)
      : undefined;
  return deps.subscriptions.remind(subscriptionId, period, email, now);
}

/** The relayer's `onFailed`: the fallback link of the charge's period. */
export function fallbackOnFailure(
  deps: Pick<PullRenewalDeps, 'subscriptions' | 'merchants' | 'payments' | 'paymentRequests' | 'clock'>,
): (charge: Charge) => Promise<boolean> {
  return (charge) => sendFallbackEmail(deps, charge.subscriptionId, charge.period);
}
