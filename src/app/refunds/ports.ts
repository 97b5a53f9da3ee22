import type { KeyMode } from '../../domain/credentials.ts';
import type { Payment } from '../../domain/payment.ts';
import type { Refund, RefundStatus } from '../../domain/refund.ts';
import type { OutboxEvent } from '../chain/ports.ts';
import type { RefundNoticeTransaction } from '../email/ports.ts';
import type { CreatedRange, MerchantKeysetPage } from '../shared/keysetPage.ts';

/** A refund and its deposit row (a payment of kind `refund`), absent until its address is known. */
export interface RefundRecord {
  readonly refund: Refund;
  readonly deposit: Payment | undefined;
}

/** A merchant's refunds of one mode, newest first, optionally of one payment and in a creation range. */
export interface RefundListQuery extends MerchantKeysetPage, CreatedRange {
  readonly paymentId?: string | undefined;
}

/**
 * Inside one transaction that holds the refunded payment's row: refunds of one payment never race. Its notices
 * to the customer are written in it too.
 */
export interface RefundTransaction extends RefundNoticeTransaction {
  /** Takes the payment's row for writing first (on SQLite too), then reads it; only payments of kind `payment`. */
  lockPayment(paymentId: string, at: Date): Promise<Payment | undefined>;
  refundsOf(paymentId: string): Promise<RefundRecord[]>;
  findByIdempotencyKey(
    merchantId: string,
    mode: KeyMode,
    key: string,
  ): Promise<{ readonly record: RefundRecord; readonly requestHash: string | null } | undefined>;
  insertRefund(
    refund: Refund,
    idempotency?: { readonly key: string; readonly requestHash: string },
  ): Promise<void>;
  /** The refund's deposit row, inserted when its address becomes known. */
  insertDeposit(deposit: Payment): Promise<void>;
  setAddress(refundId: string, address: string, source: 'merchant' | 'customer', at: Date): Promise<void>;
  cancel(refundId: string, at: Date): Promise<void>;
  setAnnounced(refundId: string, status: RefundStatus, at: Date): Promise<void>;
  insertEvent(event: OutboxEvent): Promise<void>;
}

export interface RefundStore {
  /** Runs `work` in one transaction; its first statement should be `lockPayment`. */
  transaction<T>(work: (t: RefundTransaction) => Promise<T>): Promise<T>;
  find(refundId: string): Promise<RefundRecord | undefined>;
  findForMerchant(merchantId: string, mode: KeyMode, refundId: string): Promise<RefundRecord | undefined>;
  listForMerchant(query: RefundListQuery): Promise<RefundRecord[]>;
  listForPayment(paymentId: string): Promise<RefundRecord[]>;
  /**
   * What the refunds of each payment sent on to its customer, in base units, by payment id (a payment none of
   * whose refunds sent anything is absent): one read for a page of payments (lists, exports).
   */
  sentByPayment(paymentIds: readonly string[]): Promise<Map<string, bigint>>;
  /** Refunds whose status moved since their merchant was told (the announcer's queue), oldest first. */
  listDue(now: Date, limit: number): Promise<RefundRecord[]>;
  /** Whether the address is the deposit address of any payment or refund on the chain. */
  isDepositAddress(chainId: number, address: string): Promise<boolean>;
}
