import { randomBytes } from 'node:crypto';
import type { Brand } from '../../domain/brand.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { Payment } from '../../domain/payment.ts';
import type { TransferRecord } from '../chain/ports.ts';
import type { RefundRecord } from '../refunds/ports.ts';
import { emailToCustomer, hasWritableAddress } from './composeEmail.ts';
import type { EmailMessage, EmailTemplate } from './ports.ts';
import {
  type ReceiptDocument,
  type ReceiptMerchant,
  type ReceiptTransfer,
  receiptDocument,
} from './receiptDocument.ts';

/**
 * What a receipt says, by e-mail and on its public page: the PDF's facts (receiptDocument, figures as exact
 * decimal strings, never numbers) as they are, each transfer with its explorer link, and the page's address.
 */
export interface ReceiptData extends Omit<ReceiptDocument, 'transfers' | 'title' | 'description' | 'lines'> {
  /** The merchant's colour (`#rrggbb`) for the e-mail's accents; null: Paylink's (decision 0052). */
  readonly colour: string | null;
  /** Every transfer that counted, oldest first: the same list as the PDF. */
  readonly transfers: readonly ReceiptDataTransfer[];
  /** What was bought, as the PDF states it (receiptDocument). */
  readonly sold: Pick<ReceiptDocument, 'title' | 'description' | 'lines'>;
  /** The public receipt page (`/receipts/<token>` on the checkout origin). */
  readonly receiptUrl: string;
}

export interface ReceiptDataTransfer extends Pick<ReceiptTransfer, 'amount' | 'chainId' | 'txHash'> {
  /** The transaction on its chain's explorer; null where there is none (the sandbox): the hash is shown. */
  readonly explorerTxUrl: string | null;
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
  /** The merchant's branding: the name, colour, address and tax id its receipts show (decisions 0052, 0057). */
  findBrand(merchantId: string): Promise<Brand | undefined>;
  /**
   * Stores the receipt page's token on the payment and queues the message, unless the payment has a receipt
   * already (a payment paid, reorganised away and paid again is one payment: one receipt). Returns whether it
   * queued.
   */
  insertReceipt(paymentId: string, token: string, message: EmailMessage): Promise<boolean>;
  /** The payment's transfers (orphaned ones included): the receipt lists those that counted. */
  listTransfers(paymentId: string): Promise<TransferRecord[]>;
  /** The token of the receipt the payment has, if it has one. */
  findReceiptToken(paymentId: string): Promise<string | null>;
  /** Queues a message (an updated receipt) in this transaction. */
  insertMessage(message: EmailMessage): Promise<void>;
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

/**
 * A paid payment's receipt, as the e-mail and the page show it: built from the PDF's receiptDocument, so the
 * three state the same facts (decision 0050).
 */
export function receiptData(
  payment: Payment,
  merchant: ReceiptMerchant & { readonly colour?: string | null | undefined },
  settings: Pick<ReceiptSettings, 'checkoutUrl' | 'explorerUrl'>,
  token: string,
  transfers: readonly TransferRecord[],
  refunds: readonly RefundRecord[] = [],
): ReceiptData {
  const { title, description, lines, ...facts } = receiptDocument(payment, merchant, transfers, refunds);
  return {
    ...facts,
    colour: merchant.colour ?? null,
    // Each transaction on the explorer of the chain it was sent on (a source chain's, decision 0039).
    transfers: facts.transfers.map((t) => {
      const explorer = settings.explorerUrl(t.chainId);
      return {
        amount: t.amount,
        chainId: t.chainId,
        txHash: t.txHash,
        explorerTxUrl: explorer ? new URL(`/tx/${t.txHash}`, explorer).toString() : null,
      };
    }),
    sold: { title, description, lines },
    receiptUrl: receiptUrl(settings.checkoutUrl, token),
  };
}

/**
 * Why a receipt is queued: the payment has just become `paid`; or a paid payment's received amount has just grown
 * (`topUp`: a transfer after the one that paid it became final, an overpayment; decision 0050).
 */
export type ReceiptOccasion = 'paid' | 'topUp';

/**
 * Queues a payment's receipt in the transaction that marks it paid or counts its top-up, so that the customer's
 * e-mail lists what the page does. The customer is written to only at the address the merchant gave, only if
 * the merchant sends receipts, and never for a test-mode payment (its customer is the merchant's own test;
 * decision 0024). Returns whether it queued.
 *
 * - `paid`: the first receipt, with a new page token, unless the payment has one already (a payment paid,
 *   reorganised away and paid again is one payment: one receipt).
 * - `topUp`: the updated receipt, linking the same page; only a payment that got a receipt gets one. Raised once
 *   per growth: a crash loses the count and the e-mail together, and the pass that redoes them raises it once.
 */
export async function queueReceipt(
  tx: ReceiptTransaction,
  settings: ReceiptSettings,
  payment: Payment,
  now: Date,
  occasion: ReceiptOccasion,
): Promise<boolean> {
  const merchant = await receiptMerchant(tx, payment);
  if (!merchant) return false;
  const message = (token: string) => receiptMessage(tx, settings, payment, merchant, token, now);
  if (occasion === 'paid') {
    const token = newReceiptToken();
    return tx.insertReceipt(payment.id, token, await message(token));
  }
  const token = await tx.findReceiptToken(payment.id);
  if (token === null) return false;
  await tx.insertMessage(await message(token));
  return true;
}

/** A ledger transaction's reactions that queue receipts, as the worker's ledger takes them (decision 0043). */
export function receiptReactions(settings: ReceiptSettings) {
  const on =
    (occasion: ReceiptOccasion) =>
    (tx: ReceiptTransaction, payment: Payment, now: Date): Promise<boolean> =>
      queueReceipt(tx, settings, payment, now, occasion);
  return { paymentPaid: on('paid'), paymentTopUp: on('topUp') };
}

/** The receipt e-mail as the payment stands in this transaction: every transfer counted so far. */
async function receiptMessage(
  tx: ReceiptTransaction,
  settings: ReceiptSettings,
  payment: Payment,
  merchant: Merchant,
  token: string,
  now: Date,
) {
  const [transfers, brand] = await Promise.all([
    tx.listTransfers(payment.id),
    tx.findBrand(payment.merchantId),
  ]);
  return emailToCustomer(
    settings.template,
    receiptData(payment, receiptMerchantOf(merchant, brand), settings, token, transfers),
    payment,
    { messageDomain: settings.messageDomain, now },
  );
}

/** The merchant, where the payment's customer gets receipts at all. */
async function receiptMerchant(tx: ReceiptTransaction, payment: Payment): Promise<Merchant | undefined> {
  if (payment.kind !== 'payment' || payment.mode !== 'live' || !hasWritableAddress(payment)) return undefined;
  const merchant = await tx.findMerchant(payment.merchantId);
  return merchant?.sendReceipts ? merchant : undefined;
}

/**
 * The merchant as its receipts name it: the display name, else the account's (decision 0052); the colour; the
 * address and tax id where set (decision 0057).
 */
export function receiptMerchantOf(merchant: Pick<Merchant, 'name'>, brand: Brand | undefined) {
  return {
    name: brand?.displayName ?? merchant.name,
    colour: brand?.colour ?? null,
    address: brand?.address ?? null,
    taxId: brand?.taxId ?? null,
  };
}
