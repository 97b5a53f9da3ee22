import type { PaidToken, Payment } from '../../domain/payment.ts';
import type {
  ObservedTransfer,
  PaymentEventType,
  PaymentState,
  PaymentStatus,
} from '../../domain/paymentStatus.ts';

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
  /**
   * Only for a mint (from the zero address) made by CCTP's MessageTransmitterV2 receiving a burn message (its
   * `MessageReceived` follows the mint in the same transaction), when the reader was given that transmitter: the
   * burn's `messageSender` on the source chain, lowercase. The watcher tells our own settlement by it.
   */
  readonly cctpBurnSender?: string | undefined;
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
   * open payments. With `messageTransmitter` (CCTP's MessageTransmitterV2 on this chain), the same request also
   * reads its `MessageReceived` logs, so that each mint a received burn made carries `cctpBurnSender`.
   */
  transferLogs(
    tokens: readonly string[],
    fromBlock: bigint,
    toBlock: bigint,
    options?: { readonly messageTransmitter?: string | undefined },
  ): Promise<TransferLog[]>;
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

/**
 * An event owed to a merchant, on one timeline (decision 0063): its payment's, or — for a subscription's change no
 * period's payment carries — the subscription's own (`paymentId` null, `subscriptionId` set).
 */
export interface OutboxEvent {
  readonly id: string;
  readonly paymentId: string | null;
  /** Set only on a subscription's own timeline; absent or null on a payment's. */
  readonly subscriptionId?: string | null;
  readonly merchantId: string;
  readonly type: PaymentEventType;
  readonly payload: string;
  readonly createdAt: Date;
}

/** The payment fields a status refresh writes. */
export interface PaymentStateUpdate {
  readonly state: PaymentState;
  readonly txid: string | null;
  /** The chain of the transfer `txid` names. */
  readonly txidChainId: number | null;
  /** The token of the transfer `txid` names. */
  readonly paidWith: PaidToken | null;
  /** The status of the last event written for the payment (this change's, if it owed one). */
  readonly announcedStatus: PaymentStatus;
  readonly updatedAt: Date;
}

/**
 * Writes that must commit together: transfers, the cursor, and the status changes and events they cause (and,
 * through `paymentPaid`, what other capabilities owe for them).
 */
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
  /**
   * Raises that `payment` has just become paid, in this transaction. The chain knows nothing of what follows:
   * the wiring gives the ledger its reaction (the customer's receipt, where e-mail is configured), which writes
   * in this same transaction, so a crash loses the status change and what it owes together or neither.
   */
  paymentPaid(payment: Payment, now: Date): Promise<void>;
  /**
   * Raises that `payment`, paid already, has just counted more (a later transfer became final: an overpayment),
   * in this transaction: the wiring's reaction queues the customer's updated receipt (decision 0050).
   */
  paymentTopUp(payment: Payment, now: Date): Promise<void>;
}

export interface Ledger {
  transaction<T>(work: (tx: LedgerTransaction) => Promise<T>): Promise<T>;
  /**
   * Which of these lowercase addresses are deposit addresses of ours: address → payment id. `chainId` is the
   * chain the payments' deposit rows name (the home chain, for a source chain's watcher); with `factory`, only
   * the payments whose forwarder comes from that factory (lowercase), the only ones whose address is the same on
   * another chain.
   */
  paymentsByDepositAddress(
    chainId: number,
    addresses: readonly string[],
    factory?: string | undefined,
  ): Promise<Map<string, string>>;
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
