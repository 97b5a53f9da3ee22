import type { KeyMode } from '../../domain/credentials.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PlanChange, Subscription, SubscriptionStatus } from '../../domain/subscription.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import type { OutboxEvent } from '../chain/ports.ts';
import type { EmailMessage } from '../email/ports.ts';
import type { MerchantKeysetPage } from '../shared/keysetPage.ts';

/** A create's Idempotency-Key and the hash of its body, kept on the row it made (as a refund's). */
export interface IdempotentCreate {
  readonly key: string;
  readonly requestHash: string;
}

/** What an idempotent insert did: made the row, or found the one an earlier request with that key made. */
export type InsertOutcome<T> =
  | { readonly kind: 'inserted'; readonly row: T }
  | { readonly kind: 'replay'; readonly row: T; readonly requestHash: string | null };

/** One billed period: its payment as the subscription reads it. */
export interface PeriodPayment {
  readonly period: number;
  readonly paymentId: string;
  /** The payment's stored status and the moment it was paid (the watcher writes both). */
  readonly paymentStatus: string;
  readonly paidAt: Date | null;
  readonly remindedAt: Date | null;
  /** What the subscription's events said of this payment so far. */
  readonly announced: PeriodAnnouncement;
}

export type PeriodAnnouncement = 'billed' | 'paid' | 'failed';

/** A subscription with the plan it follows and its billed periods, as every reader needs them. */
export interface SubscriptionRecord {
  readonly subscription: Subscription;
  readonly plan: SubscriptionPlan;
  /** The plan of the subscription's pending plan change (`subscription.planChange`); null: none. */
  readonly nextPlan: SubscriptionPlan | null;
  readonly periods: readonly PeriodPayment[];
}

/** What the renewal job writes when it lets a subscription go: the next look, and a change it announces. */
export interface SubscriptionRelease {
  readonly nextCheckAt: Date | null;
  /**
   * The subscription's `updatedAt` as the look read it: changed since (a cancellation came meanwhile), the next
   * look is at once instead of `nextCheckAt`.
   */
  readonly seenUpdatedAt: Date;
  readonly announcedStatus: SubscriptionStatus;
  /**
   * Events owed for the change, each on the payment of the period it is about (decision 0060), or on the
   * subscription's own timeline when no period's payment carries it (decision 0063).
   */
  readonly events: readonly OutboxEvent[];
  /** Periods whose payment those events announced paid or failed. */
  readonly periods: readonly { readonly period: number; readonly announced: PeriodAnnouncement }[];
}

/** Plans and subscriptions (adapters/db/subscriptionRepository.ts). */
export interface SubscriptionStore {
  insertPlan(
    plan: SubscriptionPlan,
    idempotency?: IdempotentCreate,
  ): Promise<InsertOutcome<SubscriptionPlan>>;
  findPlan(merchantId: string, planId: string, mode: KeyMode): Promise<SubscriptionPlan | undefined>;
  /** A plan by its id alone: the public subscribe page's read (whose merchant and mode the plan says). */
  findPlanById(planId: string): Promise<SubscriptionPlan | undefined>;
  listPlans(query: MerchantKeysetPage): Promise<SubscriptionPlan[]>;
  /** Sets `archived_at` unless already set; answers the plan as it is after. */
  archivePlan(
    merchantId: string,
    planId: string,
    mode: KeyMode,
    at: Date,
  ): Promise<SubscriptionPlan | undefined>;

  /**
   * Inserts the subscription and, in the same transaction, the events of its creation (`subscription.created`, on
   * its own timeline: decision 0063); a replay of its Idempotency-Key writes neither.
   */
  insertSubscription(
    subscription: Subscription,
    nextCheckAt: Date | null,
    idempotency?: IdempotentCreate,
    events?: readonly OutboxEvent[],
  ): Promise<InsertOutcome<Subscription>>;
  find(subscriptionId: string): Promise<SubscriptionRecord | undefined>;
  findForMerchant(
    merchantId: string,
    subscriptionId: string,
    mode: KeyMode,
  ): Promise<SubscriptionRecord | undefined>;
  list(query: MerchantKeysetPage): Promise<SubscriptionRecord[]>;
  /** The customer portal's read: the subscription whose `portalToken` this is. */
  findByPortalToken(token: string): Promise<SubscriptionRecord | undefined>;
  /**
   * Every merchant's subscriptions still running (a next look is set), soonest look first, at most `limit`: the
   * operator console's read.
   */
  listRunning(limit: number): Promise<SubscriptionRecord[]>;
  /**
   * Records (or, with null, withdraws) a plan change and asks the renewal job to look at the subscription now;
   * answers it as it is after.
   */
  setPlanChange(
    subscriptionId: string,
    change: PlanChange | null,
    now: Date,
  ): Promise<SubscriptionRecord | undefined>;
  /** Makes a pending plan change the subscription's plan, if it is still the one pending; true when it did. */
  applyPlanChange(subscriptionId: string, change: PlanChange, now: Date): Promise<boolean>;
  /**
   * Sets when the subscription's cancellation takes effect (and by whom) unless one is set for an earlier moment,
   * and asks the renewal job to look at it now; answers it as it is after.
   */
  cancel(
    subscriptionId: string,
    cancel: { readonly at: Date; readonly by: 'merchant' | 'customer' },
    now: Date,
  ): Promise<SubscriptionRecord | undefined>;

  /**
   * The renewal job's claim: ids of subscriptions whose `next_check_at` is reached and that no other worker holds,
   * leased to this one until `now + leaseMs` (oldest first, at most `limit`).
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<string[]>;
  /** Leases one subscription as `claimDue` would, whatever its next look: false when another holds it. */
  claimOne(subscriptionId: string, now: Date, leaseMs: number): Promise<boolean>;
  /**
   * Inserts a period's payment with its e-mail, in one transaction, unless that period already has one: false
   * then (another worker billed it), and nothing is written.
   */
  insertPeriodPayment(
    payment: Payment,
    subscriptionId: string,
    period: number,
    email: EmailMessage | undefined,
  ): Promise<boolean>;
  /** Marks a period's customer reminded and queues the reminder, once: false when it already was. */
  remind(subscriptionId: string, period: number, email: EmailMessage | undefined, at: Date): Promise<boolean>;
  /** Ends the lease: the next look, the status announced and its events, in one transaction. */
  release(subscriptionId: string, release: SubscriptionRelease, at: Date): Promise<void>;
}
