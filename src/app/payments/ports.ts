import type { KeyMode } from '../../domain/credentials.ts';
import type { Deposit, Payment } from '../../domain/payment.ts';
import type { PaymentStatus } from '../../domain/paymentStatus.ts';
import type { AgreedRate } from '../../domain/rates.ts';
import type { EmailMessage } from '../email/ports.ts';
import type { CreatedRange, MerchantKeysetPage } from '../shared/keysetPage.ts';
import type { ValueOrPromise } from '../shared/valueOrPromise.ts';

/** A store refused a new payment because another of its merchant's payments has its reference. */
export class PaymentReferenceTaken extends Error {
  constructor(readonly reference: string) {
    super(`the payment reference ${reference} is taken`);
  }
}

export interface PaymentStore {
  /**
   * Inserts the payment; with an idempotency key, records it as that key's result, and with an e-mail (a payment
   * request) queues it, each in the same transaction: a crash leaves all or none. Rejects with
   * PaymentReferenceTaken, having written nothing, when another of the merchant's payments has its reference.
   */
  insert(
    payment: Payment,
    options?: { readonly idempotencyKey?: string; readonly email?: EmailMessage },
  ): Promise<void>;
  /**
   * Records the language the checkout showed the payer of an open payment, where it differs from the one
   * recorded (a write only when it changes: decision 0025).
   */
  recordPayerLanguage(paymentId: string, language: string): Promise<void>;
  /**
   * A payment as its merchant may see it with a key of `mode`: another merchant's payment, or one of the
   * other mode, is simply not found.
   */
  findForMerchant(merchantId: string, paymentId: string, mode: KeyMode): Promise<Payment | undefined>;
  /** Any payment by id (for the public checkout page, which shows no private field). */
  findById(paymentId: string): Promise<Payment | undefined>;
  /** A merchant's (or every merchant's) payments of one mode, newest first (created_at, then id, descending). */
  listForMerchant(query: PaymentListQuery): Promise<Payment[]>;
  /**
   * Ids of the merchant's payments (any mode; null: any merchant's, for operators) with this deposit address,
   * paid by a transfer in this transaction, of this reference, for this customer e-mail (any letter case) or
   * with this order id; newest first, at most SEARCH_LIMIT.
   */
  searchForMerchant(merchantId: string | null, term: PaymentSearchTerm): Promise<string[]>;
}

/** The payments a search finds at most for one term (a customer's e-mail may name many). */
export const SEARCH_LIMIT = 200;

/** What one search looks a payment up by. */
export type PaymentSearchTerm =
  | { readonly depositAddress: string }
  | { readonly txHash: string }
  | { readonly reference: string }
  | { readonly customerEmail: string }
  | { readonly orderId: string };

/**
 * Whether a payment (its row or its transfers) may have changed since a reader looked: what keeps a cache of
 * status reads correct (adapters/db/paymentChanges.ts, docs/decisions/0010-status-read-cache.md). A reader takes
 * the mark before reading; what it read is current for as long as the mark stays the same.
 */
export interface PaymentChangeMarks {
  /** The payment's mark now; null while changes cannot be followed, when nothing may be cached. */
  markOf(paymentId: string): string | null;
}

/** A stored status, optionally only for links that expired before, or had not expired at, a moment. */
export interface StoredStatusMatch {
  readonly status: PaymentStatus;
  readonly expiresBefore?: Date | undefined;
  readonly expiresAtOrAfter?: Date | undefined;
}

/** A page of payments, as a merchant's listing or the operator's console reads it (a keyset page, filtered). */
export interface PaymentListQuery extends Omit<MerchantKeysetPage, 'merchantId'>, CreatedRange {
  /** One merchant's payments; null: every merchant's (the operator's console only, never a merchant's key). */
  readonly merchantId: string | null;
  /** Payments matching any of these; absent: every status. */
  readonly statuses?: readonly StoredStatusMatch[] | undefined;
  readonly orderId?: string | undefined;
  /** Only payments made through this reusable link. */
  readonly linkId?: string | undefined;
  /** Created strictly after. */
  readonly createdAfter?: Date | undefined;
}

/**
 * Computes a payment's deposit address off-chain: the CREATE2 address of a forwarder committed to the merchant
 * wallet, the treasury, the commission and the payment id. No key of that address exists anywhere.
 */
export interface DepositPlanner {
  /** `treasury` defaults to the operator's; a refund's forwarder names the customer on both sides. */
  plan(params: {
    paymentId: string;
    merchantWallet: string;
    commissionBps: number;
    treasury?: string;
  }): Deposit;
  readonly chainId: number;
  /** The token payments and refunds are made in (USDC), checksummed. */
  readonly tokenAddress: string;
  /** The contracts deposits go through (token, factory, forwarder implementation): never a refund address. */
  readonly contracts: readonly string[];
}

/** The deposit planner of each mode's chain; no `test` when the deployment has no test chain. */
export interface DepositPlanners {
  readonly live: DepositPlanner;
  readonly test?: DepositPlanner | undefined;
}

/** What became of an idempotency key before this request. */
export type IdempotencyClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'replay'; readonly paymentId: string }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'mismatch' };

export interface IdempotencyStore {
  /**
   * Claims the key for this request, or says what happened to it: created a payment (replay), still in flight,
   * or used with another body. An expired key, or a claim left by a request that died before it committed
   * (claimed before `staleClaimBefore`), is taken over.
   */
  claim(params: {
    readonly merchantId: string;
    /** Keys are scoped per (merchant, mode): the same key in test and live mode are independent. */
    readonly mode: KeyMode;
    readonly key: string;
    readonly requestHash: string;
    readonly now: Date;
    readonly expiresAt: Date;
    readonly staleClaimBefore: Date;
  }): Promise<IdempotencyClaim>;
  /** Forgets the claim of a request that failed, so the client may retry with the same key. */
  release(merchantId: string, mode: KeyMode, key: string): Promise<void>;
}

/**
 * The agreed market rate for a currency: USDC per one unit, at once while the agreement is fresh. Rejects with
 * PaylinkError RATE_UNAVAILABLE when no trustworthy rate can be had right now.
 */
export interface RateProvider {
  usdcPerUnit(currencyCode: string): ValueOrPromise<AgreedRate>;
}
