import type { KeyMode } from '../domain/credentials.ts';
import type { Merchant } from '../domain/merchant.ts';
import type { Deposit, Payment } from '../domain/payment.ts';
import type { ObservedTransfer, PaymentEventType, PaymentState } from '../domain/paymentStatus.ts';
import type { AgreedRate } from '../domain/rates.ts';

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

/**
 * Computes a payment's deposit address off-chain: the CREATE2 address of a forwarder committed to the merchant
 * wallet, the treasury, the commission and the payment id. No key of that address exists anywhere.
 */
export interface DepositPlanner {
  plan(params: { paymentId: string; merchantWallet: string; commissionBps: number }): Deposit;
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
  /** Inserts a merchant with its first API key, both or neither. */
  insert(merchant: Merchant, key: ApiKeyRecord): Promise<void>;
  find(id: string): Promise<Merchant | undefined>;
  list(limit: number): Promise<Merchant[]>;
  save(merchant: Merchant): Promise<void>;
  /** The unexpired key with this hash, and its merchant. */
  findByKeyHash(keyHash: string, now: Date): Promise<{ key: ApiKeyRecord; merchant: Merchant } | undefined>;
  listKeys(merchantId: string): Promise<ApiKeyRecord[]>;
  /** Old keys stop working at `oldKeysExpireAt` and the new key is inserted, atomically. */
  replaceKeys(newKey: ApiKeyRecord, oldKeysExpireAt: Date): Promise<void>;
}

export interface PaymentStore {
  insert(payment: Payment): Promise<void>;
  /** A payment as its merchant may see it: another merchant's payment is simply not found. */
  findForMerchant(merchantId: string, paymentId: string): Promise<Payment | undefined>;
  /** Any payment by id (for the public checkout page, which shows no private field). */
  findById(paymentId: string): Promise<Payment | undefined>;
}

/** A transfer into a deposit address, as recorded. Identified by the block it is in: a reorg makes a new one. */
export interface TransferRecord extends ObservedTransfer {
  readonly id: string;
  readonly chainId: number;
  readonly paymentId: string;
  readonly txHash: string;
  readonly blockHash: string;
  readonly tokenAddress: string;
  readonly fromAddress: string;
  readonly toAddress: string;
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
  readonly updatedAt: Date;
}

/** Writes that must commit together: transfers, the cursor, and the status changes and events they cause. */
export interface LedgerTransaction {
  /** Inserts transfers not yet recorded; returns the ids of the payments that gained one. */
  insertTransfers(transfers: readonly TransferRecord[]): Promise<string[]>;
  /** Orphans non-final transfers in blocks above `blockNumber` and forgets those blocks (a reorg). */
  rewindAbove(chainId: number, blockNumber: bigint): Promise<string[]>;
  /** Orphans the given transfers (their block is no longer canonical). */
  orphanTransfers(ids: readonly string[]): Promise<string[]>;
  /** Marks transfers in blocks up to `blockNumber` final; returns the affected payment ids. */
  markFinal(chainId: number, blockNumber: bigint): Promise<string[]>;
  saveCursor(cursor: ChainCursor): Promise<void>;
  saveBlocks(chainId: number, blocks: readonly BlockRef[]): Promise<void>;
  /** The payment, locked against concurrent refreshes until the transaction ends. */
  lockPayment(paymentId: string): Promise<Payment | undefined>;
  listTransfers(paymentId: string): Promise<TransferRecord[]>;
  updatePaymentState(paymentId: string, update: PaymentStateUpdate): Promise<void>;
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
  /** Payments still pending or processing whose link expired before `now`. */
  openPaymentsPastExpiry(now: Date, limit: number): Promise<string[]>;
  listTransfers(paymentId: string): Promise<TransferRecord[]>;
  listEvents(paymentId: string): Promise<OutboxEvent[]>;
}

/** A token `Transfer` log, decoded. */
export interface TransferLog {
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
  /** The token's Transfer logs in [fromBlock, toBlock]: one eth_getLogs, whatever the number of open payments. */
  transferLogs(token: string, fromBlock: bigint, toBlock: bigint): Promise<TransferLog[]>;
}
