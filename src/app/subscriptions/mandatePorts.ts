import type { Payment } from '../../domain/payment.ts';
import type { MandateTerms } from '../../domain/subscriptionMandate.ts';
import type { OutboxEvent } from '../chain/ports.ts';
import type { GaslessSpend } from '../gasless/ports.ts';
import type { RelayedTransaction } from '../gasless/relayedTransaction.ts';

/** The customer's EIP-2612 permit of the charger, submitted with the first charge (decision 0061). */
export interface MandatePermit {
  readonly value: bigint;
  readonly deadline: bigint;
  /** 0x and 130 hex digits (r, s, v). */
  readonly signature: string;
}

export type MandateStatus = 'active' | 'canceled';

/** A subscription's signed terms for the SubscriptionCharger. */
export interface Mandate {
  readonly subscriptionId: string;
  readonly chainId: number;
  /** Lowercase. */
  readonly charger: string;
  /** The EIP-712 digest signed, the contract's key for it. */
  readonly mandateId: string;
  readonly terms: MandateTerms;
  readonly signature: string;
  readonly permit: MandatePermit | null;
  readonly status: MandateStatus;
  /**
   * The customer's `cancel(terms)` on chain, once final (chainCancels.ts): its transaction and its block's time.
   * Absent or null: none seen.
   */
  readonly canceledOnChain?: { readonly txHash: string; readonly at: Date } | null | undefined;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type ChargeStatus = 'pending' | 'sent' | 'mined' | 'failed';

/** One period's pull charge and what became of it. */
/**
 * A period's charge: the relayer's transaction as for a gasless transfer, whose `gasUsed` is its last attempt's
 * and whose `feeWei` is what all its attempts mined (or reverted) cost the relayer (the hourly budget counts each).
 */
export interface Charge extends RelayedTransaction {
  readonly subscriptionId: string;
  /** The subscription's period (1-based); the contract's is one less. */
  readonly period: number;
  readonly paymentId: string;
  readonly chainId: number;
  readonly mandateId: string;
  readonly amountBaseUnits: bigint;
  readonly status: ChargeStatus;
  readonly attempts: number;
  /** A failed charge is tried again from then; null: not again. */
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Mandates and charges (adapters/db/mandateRepository.ts, migration 0049). */
export interface MandateStore {
  /** Stores the mandate, replacing an earlier one of the subscription (the customer signed new terms). */
  saveMandate(mandate: Mandate): Promise<void>;
  findMandate(subscriptionId: string): Promise<Mandate | undefined>;
  /** Inserts a period's charge unless that period has one: false then (another worker was first). */
  insertCharge(charge: Charge): Promise<boolean>;
  findCharge(subscriptionId: string, period: number): Promise<Charge | undefined>;
  /** The one sent on this chain and not yet mined or failed, if any. */
  inFlight(chainId: number): Promise<Charge | undefined>;
  /**
   * The oldest charge waiting to be sent on this chain: pending, or failed and due to be tried again; of the
   * merchants `skipMerchants` does not name (those that spent their share of the relayer's hour).
   */
  nextDue(chainId: number, now: Date, skipMerchants?: readonly string[]): Promise<Charge | undefined>;
  /**
   * What the relayer paid for the charges of this chain last updated since `since` (each counted with what all
   * its attempts cost), as the gasless transfers' spend: the payer the mandate's customer, the client
   * `subscriptions:<merchant id>`.
   */
  spendSince(chainId: number, since: Date): Promise<GaslessSpend[]>;
  /** Records the signed transaction (status `sent`, one attempt more) before it is broadcast. */
  markSent(charge: Charge, tx: { txHash: string; rawTx: string; nonce: bigint }, at: Date): Promise<void>;
  /**
   * Not charged this time: why, what it cost, how many attempts were made, when to try again (null: never).
   * `deferred` keeps it pending (it was not the customer's refusal); else it is failed.
   */
  markFailed(
    charge: Charge,
    outcome: {
      reason: string;
      nextAttemptAt: Date | null;
      attempts: number;
      deferred?: boolean;
      gasUsed?: bigint;
      feeWei?: bigint;
    },
    at: Date,
  ): Promise<void>;
  /**
   * Mined: the charge, and its period's payment paid by its transaction with the `payment.paid` event, in one
   * transaction; false (the payment untouched) when the payment was paid already.
   */
  markMined(
    charge: Charge,
    outcome: { gasUsed: bigint; feeWei: bigint; token: string },
    event: (payment: Payment) => OutboxEvent,
    at: Date,
  ): Promise<boolean>;
}

/** The charger's calls as the relayer submits them (adapters/chain/subscriptionCharger.ts). */
export interface ChargerCalls {
  readonly chainId: number;
  /** `charge` of the subscription's period (its contract period is one less), or `permitAndCharge` with a permit. */
  chargeData(mandate: Mandate, period: number, amountBaseUnits: bigint): string;
  /** The block a transaction is in; undefined while the node knows it in none. */
  blockOf(txHash: string): Promise<bigint | undefined>;
}
