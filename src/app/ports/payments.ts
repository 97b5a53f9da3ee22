import type { KeyMode } from '../../domain/credentials.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentStatus } from '../../domain/paymentStatus.ts';

export interface PaymentStore {
  /** Inserts the payment; with an idempotency key, records it as that key's result in the same transaction. */
  insert(payment: Payment, options?: { readonly idempotencyKey?: string }): Promise<void>;
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
   * Ids of the merchant's payments (any mode; null: any merchant's, for operators) with this deposit address, or
   * paid by a transfer in this transaction.
   */
  searchForMerchant(
    merchantId: string | null,
    term: { readonly depositAddress: string } | { readonly txHash: string },
  ): Promise<string[]>;
}

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

export interface PaymentListQuery {
  /** One merchant's payments; null: every merchant's (the operator's console only, never a merchant's key). */
  readonly merchantId: string | null;
  readonly mode: KeyMode;
  /** Payments matching any of these; absent: every status. */
  readonly statuses?: readonly StoredStatusMatch[] | undefined;
  readonly orderId?: string | undefined;
  /** Created strictly after. */
  readonly createdAfter?: Date | undefined;
  /** Created at or after (an export's `from`). */
  readonly createdFrom?: Date | undefined;
  /** Created strictly before (an export's `to`). */
  readonly createdBefore?: Date | undefined;
  /** Keyset position: only payments that come after this one in the listing order. */
  readonly after?: { readonly createdAt: Date; readonly id: string } | undefined;
  readonly limit: number;
}
