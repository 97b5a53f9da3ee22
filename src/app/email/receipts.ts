import { randomBytes } from 'node:crypto';
import type { Merchant } from '../../domain/merchant.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import { emailToCustomer, hasWritableAddress } from './composeEmail.ts';
import type { EmailMessage, EmailTemplate } from './ports.ts';

/** What a receipt says, by e-mail and on its public page: figures as exact decimal strings, never numbers. */
export interface ReceiptData {
  readonly merchantName: string;
  /** The price as the merchant set it ("25.00") and its currency ("EUR"; "USDC" for a USDC price). */
  readonly amount: string;
  readonly currency: string;
  /** The USDC the payment received ("27.00"). */
  readonly usdcPaid: string;
  readonly txid: string | null;
  /** The transaction on the network's explorer; null where there is none (the sandbox): the hash is shown. */
  readonly explorerTxUrl: string | null;
  readonly paidAt: Date;
  readonly orderId: string | null;
  /** The public receipt page (`/receipts/<token>` on the checkout origin). */
  readonly receiptUrl: string;
}

/** What the worker needs to write receipts: set only where e-mail is configured (config.mail). */
export interface ReceiptSettings {
  readonly template: EmailTemplate<ReceiptData>;
  /** The right-hand side of our Message-IDs (PAYLINK_MAIL_FROM's domain). */
  readonly messageDomain: string;
  /** The checkout's public origin, where the receipt page is. */
  readonly checkoutUrl: string;
  /** The explorer of a chain ("https://polygonscan.com"), or '' where there is none. */
  readonly explorerUrl: (chainId: number) => string | undefined;
}

/** What the transaction that marks a payment paid offers a receipt. */
export interface ReceiptTransaction {
  findMerchant(merchantId: string): Promise<Merchant | undefined>;
  /**
   * Stores the receipt page's token on the payment and queues the message, unless the payment has a receipt
   * already (a payment paid, reorganised away and paid again is one payment: one receipt). Returns whether it
   * queued.
   */
  insertReceipt(paymentId: string, token: string, message: EmailMessage): Promise<boolean>;
}

/** 32 random bytes: a URL nobody guesses, and the page's only key. */
export function newReceiptToken(): string {
  return randomBytes(32).toString('base64url');
}

export function isReceiptToken(text: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(text);
}

export function receiptUrl(checkoutUrl: string, token: string): string {
  return new URL(`/receipts/${token}`, checkoutUrl).toString();
}

/** A paid payment's receipt, as the e-mail and the page show it. */
export function receiptData(
  payment: Payment,
  merchant: Pick<Merchant, 'name'>,
  settings: Pick<ReceiptSettings, 'checkoutUrl' | 'explorerUrl'>,
  token: string,
): ReceiptData {
  // The customer's transaction, on the explorer of the chain it was sent on (a source chain's, decision 0039).
  const chainId = payment.txidChainId ?? payment.deposit?.chainId;
  const explorer = chainId === undefined ? undefined : settings.explorerUrl(chainId);
  return {
    merchantName: merchant.name,
    amount: formatMoney(payment.quote.amount),
    currency: payment.quote.amount.currency.code,
    usdcPaid: formatUsdc(payment.amountReceivedBaseUnits),
    txid: payment.txid,
    explorerTxUrl: explorer && payment.txid ? new URL(`/tx/${payment.txid}`, explorer).toString() : null,
    paidAt: payment.paidAt ?? payment.updatedAt,
    orderId: payment.orderId,
    receiptUrl: receiptUrl(settings.checkoutUrl, token),
  };
}

/**
 * Queues the receipt of a payment that has just become paid, in the transaction that says so: the customer is
 * written to only at the address the merchant gave, only if the merchant sends receipts, and never for a
 * test-mode payment (its customer is the merchant's own test; decision 0024).
 */
export async function queueReceipt(
  tx: ReceiptTransaction,
  settings: ReceiptSettings,
  payment: Payment,
  now: Date,
): Promise<boolean> {
  if (payment.kind !== 'payment' || payment.mode !== 'live' || !hasWritableAddress(payment)) return false;
  const merchant = await tx.findMerchant(payment.merchantId);
  if (!merchant?.sendReceipts) return false;
  const token = newReceiptToken();
  const message = emailToCustomer(
    settings.template,
    receiptData(payment, merchant, settings, token),
    payment,
    {
      messageDomain: settings.messageDomain,
      now,
    },
  );
  return tx.insertReceipt(payment.id, token, message);
}
