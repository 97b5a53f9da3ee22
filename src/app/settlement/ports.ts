import type { Payment } from '../../domain/payment.ts';
import type { PayoutProgress } from '../../domain/payout.ts';
import type { OutboxEvent } from '../chain/ports.ts';

/**
 * What settlement needs from the outside world: the relayer (adapters/chain/relayer.ts) and the settlement
 * records (adapters/db/settlementRepository.ts).
 */

/**
 * The forwarder generations (src/contracts). 1: a flush sends both shares or reverts. 2: each recipient is paid
 * on its own, and a share that cannot go out waits in the forwarder for its recipient.
 */
export type ForwarderVersion = 1 | 2 | 3;

/** A payment whose deposit address holds final funds not flushed yet, or whose payout failed and is due again. */
export interface SettlementCandidate {
  readonly paymentId: string;
  readonly chainId: number;
  readonly factoryAddress: string;
  /** The token to flush: one of the accepted ones, or a token an operator asked to sweep. */
  readonly tokenAddress: string;
  /** False for a swept token: what it moves is not the payment's payout (another currency, maybe). */
  readonly acceptedToken: boolean;
  readonly depositAddress: string;
  /** The forwarder's parameters, exactly as its deposit address commits to them. */
  readonly merchantAddress: string;
  readonly treasuryAddress: string;
  readonly commissionBps: number;
  /** This token's final funds received (and, on the home chain, minted by CCTP) minus what was flushed already. */
  readonly unsettledBaseUnits: bigint;
  readonly payout: PayoutProgress;
}

export type SettlementStatus = 'pending' | 'confirmed' | 'failed';
export type RelayerTransactionStatus = 'signed' | 'broadcast' | 'mined' | 'replaced';

export interface SettlementItem {
  readonly paymentId: string;
  readonly depositAddress: string;
  readonly expectedBaseUnits: bigint;
}

/** A signed relayer transaction as persisted (before broadcast). Replacements share the settlement's nonce. */
export interface RelayerTransactionRecord {
  readonly id: string;
  readonly settlementId: string;
  readonly chainId: number;
  readonly fromAddress: string;
  readonly nonce: bigint;
  readonly txHash: string;
  readonly rawTx: string;
  readonly gas: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly status: RelayerTransactionStatus;
  readonly replacesId: string | null;
  readonly createdAt: Date;
  readonly broadcastAt: Date | null;
}

export interface SettlementRecord {
  readonly id: string;
  readonly chainId: number;
  readonly nonce: bigint;
  readonly status: SettlementStatus;
  readonly payoutTxHash: string | null;
  readonly failureReason: string | null;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  readonly items: readonly SettlementItem[];
  /** Oldest first; the last one has the highest fees. */
  readonly transactions: readonly RelayerTransactionRecord[];
}

/** How a settlement ended: its transaction mined and succeeded, mined and reverted, or its nonce went elsewhere. */
export type SettlementClosing =
  | { readonly status: 'confirmed'; readonly minedTxId: string; readonly payoutTxHash: string }
  | { readonly status: 'failed'; readonly minedTxId: string | null; readonly reason: string };

/** Writes that commit together: a settlement closed, its payments' payouts, and the webhooks they owe. */
export interface SettlementTransaction {
  /** Pending → confirmed or failed, once; false (write nothing else) if it was no longer pending. */
  closeSettlement(settlementId: string, closing: SettlementClosing, at: Date): Promise<boolean>;
  /** The payments, locked against concurrent writers until the transaction ends (PostgreSQL: in id order). */
  lockPayments(paymentIds: readonly string[]): Promise<Payment[]>;
  /** Stores the payment's payout progress (`settled_base_units` follows from it). */
  savePayout(paymentId: string, payout: PayoutProgress, at: Date): Promise<void>;
  /** Adds what a flush sent to the deposit's balance of that token on that chain; whether it is an accepted one. */
  recordFlush(
    ownerId: string,
    chainId: number,
    tokenAddress: string,
    merchantSentBaseUnits: bigint,
    feeSentBaseUnits: bigint,
  ): Promise<{ readonly accepted: boolean }>;
  insertEvent(event: OutboxEvent): Promise<void>;
}

/** The relayer's gas balance as its settler read it, kept for every process's /metrics. */
export interface RelayerBalanceReading {
  readonly chainId: number;
  readonly address: string;
  readonly balanceWei: bigint;
  readonly lowBalanceWei: bigint;
  readonly observedAt: Date;
}

/** A payment whose payout has not fully gone out, as operators list it (`paylink settlements list`). */
export interface UnsettledPayout {
  readonly payment: Payment;
  /** Final funds received minus what was flushed already. */
  readonly unsettledBaseUnits: bigint;
}

/** The settler's records. Only a single settler per chain writes them (the one holding its worker lock). */
export interface SettlementStore {
  /** The settlement of this chain still pending, if any, with its items and transactions. */
  inFlight(chainId: number): Promise<SettlementRecord | undefined>;
  /**
   * Payments paid or failed on this chain that are due for a flush at `now`: at least `dustThresholdBaseUnits`
   * final and unflushed, or a share that failed to go out; never before their back-off ends. Oldest first.
   */
  candidates(
    chainId: number,
    filter: { dustThresholdBaseUnits: bigint; now: Date; limit: number },
  ): Promise<SettlementCandidate[]>;
  /** The highest nonce any settlement of this chain used (each was consumed on chain). */
  highestNonce(chainId: number): Promise<bigint | undefined>;
  /** Settlement, items and first transaction, all or nothing; false if another is already in flight. */
  create(
    settlement: { id: string; chainId: number; nonce: bigint; createdAt: Date },
    items: readonly SettlementItem[],
    transaction: RelayerTransactionRecord,
  ): Promise<boolean>;
  /** A replacement transaction (same nonce, higher fees), persisted before it is broadcast. */
  addTransaction(transaction: RelayerTransactionRecord): Promise<void>;
  markBroadcast(transactionId: string, at: Date): Promise<void>;
  transaction<T>(work: (tx: SettlementTransaction) => Promise<T>): Promise<T>;
  /** Payments whose merchant payout has failed since before `blockedBefore` and whose merchant was not told. */
  delayedUnnotified(chainId: number, blockedBefore: Date, limit: number): Promise<string[]>;
  /** Payments whose payout has not fully gone out (any chain), oldest first; `delayedOnly`: failing ones. */
  listUnsettled(filter: {
    dustThresholdBaseUnits: bigint;
    failingOnly: boolean;
    limit: number;
  }): Promise<UnsettledPayout[]>;
  /**
   * Asks for a token that does not pay to be flushed out of the payment's deposit address (an operator's sweep):
   * `balanceBaseUnits` is what the forwarder holds of it now. False if there is no such payment on a chain, or
   * the token is an accepted one (it is settled anyway).
   */
  requestSweep(paymentId: string, tokenAddress: string, balanceBaseUnits: bigint): Promise<boolean>;
  /** Ends the back-off of one payment (or of every payment waiting for one): flushed on the next pass. */
  retryNow(target: { readonly paymentId: string } | { readonly all: true }): Promise<number>;
  recordRelayerBalance(reading: RelayerBalanceReading): Promise<void>;
  relayerBalances(): Promise<RelayerBalanceReading[]>;
}

/** One forwarder to deploy (if needed) and flush: the parameters its deposit address commits to. */
export interface FlushItem {
  readonly paymentId: string;
  readonly merchantAddress: string;
  readonly treasuryAddress: string;
  readonly commissionBps: number;
}

/** `flushBatch(items, token)` on one factory, whose forwarders are of `version`. */
export interface FlushCall {
  readonly factoryAddress: string;
  readonly version: ForwarderVersion;
  readonly tokenAddress: string;
  readonly items: readonly FlushItem[];
}

/** What one forwarder's flush would do, or did (version 2 returns it per item). */
export interface FlushOutcome {
  readonly merchantSent: bigint;
  readonly feeSent: bigint;
  /** Left in the forwarder for each recipient because its transfer failed. */
  readonly merchantOwed: bigint;
  readonly feeOwed: bigint;
}

/**
 * A flush simulated with `eth_call` (no gas spent): per item for version 2; version 1 only succeeds (moving
 * everything) or reverts, so its outcomes are null. `ok: false` when the call as a whole would revert.
 */
export type FlushSimulation =
  | { readonly ok: true; readonly outcomes: readonly FlushOutcome[] | null }
  | { readonly ok: false; readonly reason: string };

export interface FeesPerGas {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** A gas estimate, or the reason the call would revert (an RPC failure throws instead). */
export type GasEstimate =
  | { readonly ok: true; readonly gas: bigint }
  | { readonly ok: false; readonly reason: string };

export interface SignedTransaction {
  readonly rawTx: string;
  readonly txHash: string;
}

/** Accepted includes "already known": the node has this very transaction. A rejection leaves it unsent. */
export type BroadcastOutcome =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly reason: string };

/** A `Flushed` event of a forwarder: what it sent to each recipient. */
export interface FlushedEvent {
  readonly forwarderAddress: string;
  readonly tokenAddress: string;
  readonly paymentId: string;
  readonly merchantBaseUnits: bigint;
  readonly feeBaseUnits: bigint;
}

/** A `Withheld` event of a version 2 forwarder: what stays in it, owed to each recipient. */
export interface WithheldEvent {
  readonly forwarderAddress: string;
  readonly tokenAddress: string;
  readonly paymentId: string;
  readonly merchantOwedBaseUnits: bigint;
  readonly feeOwedBaseUnits: bigint;
}

export interface RelayerReceipt {
  readonly txHash: string;
  readonly blockNumber: bigint;
  readonly success: boolean;
  /** What the transaction cost the relayer: gas used × effective gas price, in wei. */
  readonly gasUsed: bigint;
  readonly feeWei: bigint;
  /** Empty for a reverted transaction. */
  readonly flushed: readonly FlushedEvent[];
  readonly withheld: readonly WithheldEvent[];
}

/**
 * The relayer: one key that pays gas for flushes and holds nothing else. It signs locally; its key never
 * leaves the adapter (never in a return value, an error or a log).
 */
export interface Relayer {
  readonly address: string;
  /** The account's nonce at the latest block: the next nonce, once nothing of ours is pending. */
  nonce(): Promise<bigint>;
  /** Native balance (POL), in wei. */
  balance(): Promise<bigint>;
  /**
   * The deposit address these params yield on this factory, whose forwarders are of `version` (version 3's
   * address is another formula), or undefined if the factory refuses them.
   */
  depositAddressOf(factoryAddress: string, item: FlushItem, version: ForwarderVersion): string | undefined;
  /** The generation of a factory's forwarders, read from the chain once (it never changes). */
  forwarderVersion(factoryAddress: string): Promise<ForwarderVersion>;
  simulateFlush(call: FlushCall): Promise<FlushSimulation>;
  estimateFlush(call: FlushCall): Promise<GasEstimate>;
  /**
   * Why the token would refuse, right now, to move `amountBaseUnits` from `from` to `to` (an `eth_call` of
   * `transfer` as `from`), decoded as the token reverts ("Blacklistable: account is blacklisted"); null if it
   * would move them.
   */
  transferRefusal(token: string, from: string, to: string, amountBaseUnits: bigint): Promise<string | null>;
  currentFees(): Promise<FeesPerGas>;
  signFlush(
    call: FlushCall,
    tx: { nonce: bigint; gas: bigint; fees: FeesPerGas },
  ): Promise<SignedTransaction>;
  /** Any other call the relayer pays for (a customer's signed transfer): the gas it would take, or why not. */
  estimateCall(to: string, data: string): Promise<GasEstimate>;
  signCall(
    call: { to: string; data: string },
    tx: { nonce: bigint; gas: bigint; fees: FeesPerGas },
  ): Promise<SignedTransaction>;
  /** The same transaction (same nonce, payload and gas) with other fees. */
  signReplacement(rawTx: string, fees: FeesPerGas): Promise<SignedTransaction>;
  broadcast(rawTx: string): Promise<BroadcastOutcome>;
  /** The receipt of a mined transaction, or undefined while it is not mined (or not known). */
  receipt(txHash: string): Promise<RelayerReceipt | undefined>;
}
