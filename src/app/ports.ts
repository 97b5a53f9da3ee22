import type { KeyMode } from '../domain/credentials.ts';
import type { Merchant } from '../domain/merchant.ts';
import type { Deposit, PaidToken, Payment } from '../domain/payment.ts';
import type {
  ObservedTransfer,
  PaymentEventType,
  PaymentState,
  PaymentStatus,
} from '../domain/paymentStatus.ts';
import type { PayoutPolicy } from '../domain/payout.ts';
import type { AgreedRate } from '../domain/rates.ts';
import type { BucketDecision, BucketPolicy } from '../domain/tokenBucket.ts';
import type { AttemptOutcome, DeliveryStatus } from '../domain/webhookDelivery.ts';

/**
 * What the use cases need from the outside world. Adapters implement these (adapters/db for the stores,
 * adapters/rates for rates); use cases receive them as their first argument.
 */

/** Time, passed in so that tests and the expirer can drive it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The agreed market rate for a currency: USDC per one unit. Throws PaylinkError RATE_UNAVAILABLE when no
 * trustworthy rate can be had right now.
 */
export interface RateProvider {
  usdcPerUnit(currencyCode: string): Promise<AgreedRate>;
}

/** Token buckets for rate limiting: in this process's memory, or shared by every API process through Redis. */
export interface RateLimitStore {
  /** Takes one token from the bucket named `key` (created full under `policy` if new). */
  take(key: string, policy: BucketPolicy, now: Date): Promise<BucketDecision>;
  close(): Promise<void>;
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

export interface ApiKeyRecord {
  readonly id: string;
  readonly merchantId: string;
  readonly keyHash: string;
  readonly keyPrefix: string;
  readonly mode: KeyMode;
  readonly createdAt: Date;
  /** Null while current; set when rotated out (end of the grace period) or revoked. */
  readonly expiresAt: Date | null;
}

export interface MerchantStore {
  /** Inserts a merchant with its first API key (and any further ones, e.g. a test key), all or nothing. */
  insert(merchant: Merchant, key: ApiKeyRecord, moreKeys?: readonly ApiKeyRecord[]): Promise<void>;
  find(id: string): Promise<Merchant | undefined>;
  list(limit: number): Promise<Merchant[]>;
  save(merchant: Merchant): Promise<void>;
  /** The unexpired key with this hash, and its merchant. */
  findByKeyHash(keyHash: string, now: Date): Promise<{ key: ApiKeyRecord; merchant: Merchant } | undefined>;
  listKeys(merchantId: string): Promise<ApiKeyRecord[]>;
  /**
   * Old keys of the new key's mode stop working at `oldKeysExpireAt` and the new key is inserted, atomically;
   * keys of the other mode are untouched.
   */
  replaceKeys(newKey: ApiKeyRecord, oldKeysExpireAt: Date): Promise<void>;
}

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

/** Counts for /metrics and /readyz: cheap aggregate reads, never on a request's path. */
export interface MonitoringStore {
  /** A trivial query; throws when the database cannot be reached. */
  ping(): Promise<void>;
  /** How many payments have each stored status (the expirer may not have caught up with the clock yet). */
  countPaymentsByStatus(): Promise<ReadonlyMap<string, number>>;
  /** Webhook events by delivery status, and when the oldest event still owed a delivery was written. */
  webhookQueue(): Promise<{ byStatus: ReadonlyMap<string, number>; oldestOwedAt: Date | null }>;
  /** Payouts still owed, those delayed (failing since before `delayedSince`), and what fails now, by reason. */
  payoutHealth(policy: PayoutPolicy, delayedSince: Date): Promise<PayoutHealth>;
  /** Each relayer's gas balance as its settler last read it. */
  relayerBalances(): Promise<readonly RelayerBalance[]>;
  /** Gasless authorizations per chain: how many are in each status, and the gas fees paid, all time and since. */
  gaslessRelays(since: Date): Promise<readonly GaslessRelaySummary[]>;
}

export interface GaslessRelaySummary {
  readonly chainId: number;
  readonly byStatus: ReadonlyMap<string, number>;
  readonly feeWeiTotal: bigint;
  readonly feeWeiSince: bigint;
}

export interface PayoutHealth {
  /** Payouts owed and not delayed: final funds waiting for a flush, or failing for less than the delay. */
  readonly pending: number;
  readonly delayed: number;
  /** Since when the oldest delayed payout has been failing; null when none is delayed. */
  readonly oldestDelayedSince: Date | null;
  /** Payments whose merchant share, or commission, fails to go out now, by the last decoded reason. */
  readonly failing: readonly {
    readonly share: 'merchant' | 'commission';
    readonly reason: string;
    readonly count: number;
  }[];
}

export interface RelayerBalance {
  readonly chainId: number;
  readonly balanceWei: bigint;
  readonly lowBalanceWei: bigint;
  readonly observedAt: Date;
}

/** A transfer into a deposit address, as recorded. Identified by the block it is in: a reorg makes a new one. */
export interface TransferRecord extends ObservedTransfer {
  readonly id: string;
  readonly chainId: number;
  readonly paymentId: string;
  readonly txHash: string;
  readonly blockHash: string;
  /** An accepted token (PAYLINK_ACCEPTED_TOKENS): USDC, or another counted like it. */
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
  readonly fromAddress: string;
  readonly toAddress: string;
}

/** A transfer of a token that does not pay (sent by mistake) to a payment's deposit address: recorded, reported. */
export interface UnacceptedTransfer {
  readonly id: string;
  readonly chainId: number;
  readonly paymentId: string;
  readonly txHash: string;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly tokenAddress: string;
  readonly tokenSymbol: string;
  /** In the token's own base units (its decimals may not be 6). */
  readonly amountBaseUnits: bigint;
  readonly tokenDecimals: number;
  readonly fromAddress: string;
  readonly seenAt: Date;
}

export interface ChainCursor {
  readonly chainId: number;
  /** The first block not yet scanned. */
  readonly nextBlock: bigint;
  readonly headBlock: bigint;
  readonly finalizedBlock: bigint;
  readonly updatedAt: Date;
}

export interface BlockRef {
  readonly number: bigint;
  readonly hash: string;
}

export interface OutboxEvent {
  readonly id: string;
  readonly paymentId: string;
  readonly merchantId: string;
  readonly type: PaymentEventType;
  readonly payload: string;
  readonly createdAt: Date;
}

/** The payment fields a status refresh writes. */
export interface PaymentStateUpdate {
  readonly state: PaymentState;
  readonly txid: string | null;
  /** The token of the transfer `txid` names. */
  readonly paidWith: PaidToken | null;
  /** The status of the last event written for the payment (this change's, if it owed one). */
  readonly announcedStatus: PaymentStatus;
  readonly updatedAt: Date;
}

/** Writes that must commit together: transfers, the cursor, and the status changes and events they cause. */
export interface LedgerTransaction {
  /** Inserts transfers not yet recorded; returns the ids of the payments that gained one. */
  insertTransfers(transfers: readonly TransferRecord[]): Promise<string[]>;
  /** Records transfers of tokens that do not pay (noticed tokens) not yet recorded; returns those that were new. */
  insertUnacceptedTransfers(transfers: readonly UnacceptedTransfer[]): Promise<UnacceptedTransfer[]>;
  /** What each accepted token brought the payment in final transfers: the settler's per-token balances. */
  saveReceivedByToken(
    paymentId: string,
    chainId: number,
    received: ReadonlyMap<string, bigint>,
  ): Promise<void>;
  /** Orphans non-final transfers in blocks above `blockNumber` and forgets those blocks (a reorg). */
  rewindAbove(chainId: number, blockNumber: bigint): Promise<string[]>;
  /** Orphans the given transfers (their block is no longer canonical). */
  orphanTransfers(ids: readonly string[]): Promise<string[]>;
  /** Marks transfers in blocks up to `blockNumber` final; returns the affected payment ids. */
  markFinal(chainId: number, blockNumber: bigint): Promise<string[]>;
  saveCursor(cursor: ChainCursor): Promise<void>;
  saveBlocks(chainId: number, blocks: readonly BlockRef[]): Promise<void>;
  /** Forgets recorded blocks below this height: deep below finality, no reorg can reach them. */
  pruneBlocksBelow(chainId: number, blockNumber: bigint): Promise<void>;
  /** The payment, locked against concurrent refreshes until the transaction ends. */
  lockPayment(paymentId: string): Promise<Payment | undefined>;
  listTransfers(paymentId: string): Promise<TransferRecord[]>;
  updatePaymentState(paymentId: string, update: PaymentStateUpdate): Promise<void>;
  /** Marks the payment changed (its `updated_at`) without changing its state: what is shown of it did. */
  touchPayment(paymentId: string, at: Date): Promise<void>;
  insertEvent(event: OutboxEvent): Promise<void>;
}

export interface Ledger {
  transaction<T>(work: (tx: LedgerTransaction) => Promise<T>): Promise<T>;
  /** Which of these lowercase addresses are deposit addresses of ours: address → payment id. */
  paymentsByDepositAddress(chainId: number, addresses: readonly string[]): Promise<Map<string, string>>;
  cursor(chainId: number): Promise<ChainCursor | undefined>;
  /** Recorded blocks at or below `atOrBelow`, newest first, at most `limit`. */
  recentBlocks(chainId: number, atOrBelow: bigint, limit: number): Promise<BlockRef[]>;
  /** Non-final, non-orphaned transfers in blocks up to `blockNumber` (to check before they become final). */
  transfersToFinalize(chainId: number, blockNumber: bigint, limit: number): Promise<TransferRecord[]>;
  /** When the first payment with a deposit address on this chain was created (undefined: none yet). */
  earliestPaymentCreatedAt(chainId: number): Promise<Date | undefined>;
  /** Payments still pending or processing whose link expired before `now`. */
  openPaymentsPastExpiry(now: Date, limit: number): Promise<string[]>;
  listTransfers(paymentId: string): Promise<TransferRecord[]>;
  /** Transfers of tokens that do not pay, still on the canonical chain, oldest first. */
  listUnacceptedTransfers(paymentId: string): Promise<UnacceptedTransfer[]>;
  listEvents(paymentId: string): Promise<OutboxEvent[]>;
}

/** A token `Transfer` log, decoded. */
export interface TransferLog {
  /** The token contract that emitted it. */
  readonly token: string;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly from: string;
  readonly to: string;
  readonly amountBaseUnits: bigint;
}

export interface BlockHeader {
  readonly number: bigint;
  readonly hash: string;
  readonly timestamp: Date;
}

/** What the watcher reads from the chain. */
export interface ChainReader {
  latestBlockNumber(): Promise<bigint>;
  /** The highest block that is final under the configured policy (`finalized` tag or N confirmations). */
  finalizedBlockNumber(): Promise<bigint>;
  /** The canonical block at that height, or undefined if the chain is not that long (any more). */
  blockAt(number: bigint): Promise<BlockHeader | undefined>;
  /**
   * The tokens' Transfer logs in [fromBlock, toBlock]: one eth_getLogs for all of them, whatever the number of
   * open payments.
   */
  transferLogs(tokens: readonly string[], fromBlock: bigint, toBlock: bigint): Promise<TransferLog[]>;
}

/** An event claimed for one delivery attempt: what to send, where, and the secrets to sign it with. */
export interface WebhookJob {
  readonly eventId: string;
  readonly paymentId: string;
  readonly merchantId: string;
  readonly type: PaymentEventType;
  /** The body exactly as stored when the event was written: every attempt sends these bytes. */
  readonly payload: string;
  readonly createdAt: Date;
  /** This attempt's number (1, 2, …, across resends); also the claim's fencing token. */
  readonly attemptNumber: number;
  /** Attempts already made in this round: the position in the retry schedule. */
  readonly scheduleStep: number;
  /** The payment's own webhook URL, else the merchant's default; null when neither is set. */
  readonly url: string | null;
  readonly webhookSecret: string;
  readonly previousWebhookSecret: { readonly secret: string; readonly until: Date } | null;
}

/** How an attempt ended, as recorded with it. */
export interface WebhookAttemptResult {
  readonly finishedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  /** At most the first 4 KiB of the response body. */
  readonly responseBody: string | null;
  readonly outcome: Exclude<AttemptOutcome, 'abandoned'>;
  readonly nextAttemptAt: Date | null;
}

/** The event's delivery state after an attempt. */
export interface WebhookDeliveryUpdate {
  readonly status: Exclude<DeliveryStatus, 'delivering'>;
  readonly nextAttemptAt: Date | null;
  readonly scheduleStep: number;
  readonly deliveredAt: Date | null;
}

/** An outbox event with its delivery state. */
export interface WebhookEventRecord extends OutboxEvent {
  readonly deliveryStatus: DeliveryStatus;
  readonly attemptCount: number;
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
}

export interface WebhookAttemptRecord {
  readonly eventId: string;
  readonly attemptNumber: number;
  readonly url: string | null;
  readonly startedAt: Date;
  /** Null while in flight. */
  readonly finishedAt: Date | null;
  readonly durationMs: number | null;
  readonly statusCode: number | null;
  readonly outcome: AttemptOutcome | null;
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly nextAttemptAt: Date | null;
}

export interface WebhookEventFilter {
  readonly merchantId?: string | undefined;
  /** Only events of payments of this mode (a merchant's key sees its own mode only); absent: all. */
  readonly mode?: KeyMode | undefined;
  readonly paymentId?: string | undefined;
  readonly status?: DeliveryStatus | undefined;
  readonly limit: number;
}

/** The outbox as the webhook dispatcher and the operators see it. */
export interface WebhookStore {
  /**
   * Claims up to `limit` due events — never attempted, retry time reached, or leased by a worker whose lease
   * ran out — leases them until `now + leaseMs`, and records each attempt as started. Concurrent callers never
   * claim the same event (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one writer at a time).
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<WebhookJob[]>;
  /**
   * Records the attempt's result and the event's next state. The state is written only if the claim still
   * holds (nobody claimed the event again after the lease ran out); returns whether it did.
   */
  completeAttempt(
    job: WebhookJob,
    result: WebhookAttemptResult,
    next: WebhookDeliveryUpdate,
  ): Promise<boolean>;
  /** Newest first. */
  listEvents(filter: WebhookEventFilter): Promise<WebhookEventRecord[]>;
  findEvent(eventId: string): Promise<WebhookEventRecord | undefined>;
  /** Attempts of these events, oldest first, at most `limit`. */
  listAttempts(eventIds: readonly string[], limit: number): Promise<WebhookAttemptRecord[]>;
  /** Queues the event again with a fresh schedule, unless a worker is delivering it right now. */
  requeue(eventId: string, now: Date): Promise<'requeued' | 'in_flight' | 'not_found'>;
  /**
   * Makes `newSecret` the merchant's signing secret; the current one keeps signing too until
   * `previousUntil`. Returns false when there is no such merchant.
   */
  rotateSecret(merchantId: string, newSecret: string, previousUntil: Date, now: Date): Promise<boolean>;
}

/** One webhook request, sent as is: the outbound adapter adds nothing but User-Agent and Content-Type. */
export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type WebhookResponse =
  | {
      readonly kind: 'response';
      readonly statusCode: number;
      readonly retryAfter: string | undefined;
      /** At most the first 4 KiB. */
      readonly body: string;
      readonly durationMs: number;
    }
  | {
      /** No HTTP response: refused address, DNS failure, timeout, connection reset … */
      readonly kind: 'error';
      readonly error: string;
      readonly durationMs: number;
    };

/** Sends webhooks to merchants' servers. Never throws: every failure is a `kind: 'error'` result. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** DNS: the addresses a host name resolves to (all of them). Throws when it does not resolve. */
export interface HostResolver {
  resolve(hostname: string): Promise<string[]>;
}
