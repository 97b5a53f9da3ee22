import type { AuthorizationDomain, TransferAuthorization } from '../../domain/transferAuthorization.ts';
import type { RelayedTransaction } from './relayedTransaction.ts';

export type GaslessStatus = 'pending' | 'sent' | 'mined' | 'failed';

/** A customer's signed authorization as stored, and what became of it. */
export interface GaslessAuthorization extends TransferAuthorization, RelayedTransaction {
  /** `gas_…` */
  readonly id: string;
  readonly paymentId: string;
  readonly chainId: number;
  /** Lowercase. */
  readonly tokenAddress: string;
  readonly signature: string;
  /** Who sent it to the checkout (for rate limits and abuse reports); never shown to merchants. */
  readonly clientAddress: string;
  readonly status: GaslessStatus;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
}

export type GaslessInsertOutcome = 'inserted' | 'nonce-used' | 'in-flight';

export interface GaslessStore {
  /**
   * Stores a new `pending` authorization, unless the token's (authorizer, nonce) was submitted before
   * (`nonce-used`) or the payment already has one pending or sent (`in-flight`).
   */
  insert(authorization: GaslessAuthorization): Promise<GaslessInsertOutcome>;
  listForPayment(paymentId: string): Promise<GaslessAuthorization[]>;
  /** The one sent and not yet mined or failed on this chain, if any. */
  inFlight(chainId: number): Promise<GaslessAuthorization | undefined>;
  /**
   * The next one waiting to be sent on this chain: of the payers least served since `queue.servedSince` (fewest
   * authorizations relayed at a cost), the oldest; without `queue`, simply the oldest. Authorizations of the
   * payers and payments `queue` skips are left waiting.
   */
  nextPending(chainId: number, queue?: PendingQueue): Promise<GaslessAuthorization | undefined>;
  /** Records the signed transaction (status `sent`) before it is broadcast. */
  markSent(id: string, tx: { txHash: string; rawTx: string; nonce: bigint }): Promise<void>;
  /** Ends it: `mined` with what it cost, or `failed` with why (and what it cost, if it was mined and reverted). */
  finish(
    id: string,
    outcome: {
      status: 'mined' | 'failed';
      gasUsed?: bigint;
      feeWei?: bigint;
      reason?: string;
      /** Mined by another's transaction (a front-runner's): that transaction, replacing the relayer's own. */
      txHash?: string;
    },
    at: Date,
  ): Promise<void>;
  /** What the relayer paid for each authorization of this chain that finished since `since` at a cost. */
  spendSince(chainId: number, since: Date): Promise<GaslessSpend[]>;
}

/** How the relayer picks among waiting authorizations: the hour's budget is shared, not first come first served. */
export interface PendingQueue {
  /** Served counts the authorizations relayed (mined or reverted, at a cost) since then. */
  readonly servedSince: Date;
  /** Authorizers (lowercase) and payments that have spent their share of the hour. */
  readonly skipPayers?: readonly string[];
  readonly skipPayments?: readonly string[];
  /** Submitters (`clientAddress`) that have spent theirs: the x402 merchants (`x402:<merchant id>`, decision 0059). */
  readonly skipClients?: readonly string[];
}

/** One authorization's cost: who it was for and what the relayer paid, in wei. */
export interface GaslessSpend {
  /** The authorizer, lowercase. */
  readonly from: string;
  readonly paymentId: string;
  /** Who submitted it (`clientAddress`): an x402 merchant's calls are `x402:<merchant id>`. */
  readonly client: string;
  readonly feeWei: bigint;
}

/** What the gasless path reads from one chain, each read before any gas is spent. */
export interface AuthorizationChain {
  readonly chainId: number;
  /** The token's domain when it supports EIP-3009, else undefined (a token without it pays with gas). */
  domainOf(token: string): Promise<AuthorizationDomain | undefined>;
  /** Who signed it over that domain (lowercase), or undefined for a malformed signature. */
  recoverSigner(
    domain: AuthorizationDomain,
    authorization: TransferAuthorization,
    signature: string,
  ): Promise<string | undefined>;
  /** Whether the token has already used (or seen canceled) this nonce of this authorizer. */
  isUsed(token: string, authorizer: string, nonce: string): Promise<boolean>;
  /**
   * Why the token would refuse to execute it now, in its own words (balance, blacklist, pause…), found by
   * simulating the relayer's call; undefined when it would go through.
   */
  refusalOf(
    token: string,
    authorization: TransferAuthorization,
    signature: string,
  ): Promise<string | undefined>;
  /** The block a transaction is in; undefined while the node knows it in none (pending, dropped, never seen). */
  blockOf(txHash: string): Promise<bigint | undefined>;
  /**
   * The transaction that executed this very authorization (its nonce used, its value moved from its authorizer to
   * its recipient in that transaction), whoever sent it; undefined when none is found.
   */
  usedBy(token: string, authorization: TransferAuthorization): Promise<string | undefined>;
  /** The calldata of the token's `transferWithAuthorization` that submits it. */
  callData(authorization: TransferAuthorization, signature: string): string;
}
