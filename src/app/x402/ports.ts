import type { KeyMode } from '../../domain/credentials.ts';
import type { Payment } from '../../domain/payment.ts';
import type { OutboxEvent } from '../chain/ports.ts';
import type { GaslessAuthorization } from '../gasless/ports.ts';

/** A call settled (or being settled) through the facilitator: its payment and its signed authorization. */
export interface X402Call {
  readonly payment: Payment;
  readonly authorization: GaslessAuthorization;
  /** CAIP-2. */
  readonly network: string;
  readonly resourceUrl: string | null;
}

/** What an x402 address commits to of the merchant's: a change of either makes a new address (migration 0051). */
export interface X402AccountTerms {
  readonly payoutAddress: string;
  readonly commissionBps: number;
}

/** What the facilitator stores (adapters/db/x402Repository.ts, migration 0047). */
export interface X402Store {
  /**
   * The merchant's x402 address of this mode (a payment of kind `x402`) committed to these terms (its payout
   * wallet and commission), if it has one yet.
   */
  accountOf(merchantId: string, mode: KeyMode, terms: X402AccountTerms): Promise<Payment | undefined>;
  /** The merchant's x402 address of this mode at this deposit address, whatever its terms (a current or an old one). */
  accountAt(merchantId: string, mode: KeyMode, depositAddress: string): Promise<Payment | undefined>;
  /** The x402 address an x402 call's payment was paid to (its authorization's recipient), if it is a call's. */
  accountOfCall(paymentId: string): Promise<Payment | undefined>;
  /** Stores it unless the merchant has one of this mode and terms already; either way answers the one stored. */
  insertAccount(account: Payment): Promise<Payment>;
  /**
   * The call's payment, its authorization (pending, for the gasless relayer) and what it was for, in one
   * transaction; `nonce-used` (nothing written) when the token's (authorizer, nonce) was submitted before.
   */
  insertCall(call: X402Call): Promise<'inserted' | 'nonce-used'>;
  /** The call whose authorization is this token's (authorizer, nonce) on this chain, if one was submitted. */
  findCall(chainId: number, token: string, from: string, nonce: string): Promise<X402Call | undefined>;
  /**
   * Marks the call's payment paid by this transaction, with its `payment.paid` event, in one transaction; false
   * (nothing written) when it was paid already.
   */
  recordPaid(
    paymentId: string,
    paid: { readonly txHash: string; readonly chainId: number; readonly token: string; readonly at: Date },
    event: (payment: Payment) => OutboxEvent,
  ): Promise<boolean>;
}
