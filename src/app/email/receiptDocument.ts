import { type ShownLine, shownLines } from '../../domain/lineItems.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import { formatRate } from '../../domain/quote.ts';
import { refundFundingOf } from '../../domain/refund.ts';
import type { TransferRecord } from '../chain/ports.ts';
import type { RefundRecord } from '../refunds/ports.ts';

/**
 * What a paid payment's PDF receipt says (decision 0048): figures as exact decimal strings, never numbers, and
 * nothing of the merchant's internals (no commission, no metadata, no payout).
 */
export interface ReceiptDocument {
  /** The name the customer knows the shop by: its display name, else its account name (decision 0052). */
  readonly merchantName: string;
  /** The merchant's address, lines joined by `\n`, and tax id, where it set them (decision 0057). */
  readonly merchantAddress: string | null;
  readonly merchantTaxId: string | null;
  /** The receipt's number: the payment's short reference (`PL-7K2M-9QXD`), unique per merchant (decision 0057). */
  readonly reference: string;
  /** The payment's id: what the merchant's API knows it by. */
  readonly paymentId: string;
  readonly orderId: string | null;
  /** What was bought (decision 0051): the title, description and lines, amounts in `currency`. */
  readonly title: string | null;
  readonly description: string | null;
  readonly lines: readonly ShownLine[];
  readonly paidAt: Date;
  /** The price as set ("25.00") in its currency ("EUR"). */
  readonly amount: string;
  readonly currency: string;
  /** The price in USDC at the locked rate, and what arrived (more after an overpayment). */
  readonly usdcPrice: string;
  readonly usdcPaid: string;
  /** USDC per one unit of `currency` as locked at creation ("1.08"); null for a USDC price. */
  readonly rate: string | null;
  readonly transfers: readonly ReceiptTransfer[];
  readonly refunds: readonly ReceiptRefund[];
}

export interface ReceiptTransfer {
  readonly chainId: number;
  readonly txHash: string;
  readonly amount: string;
  readonly at: Date;
}

export interface ReceiptRefund {
  /** What went back to the customer (USDC). */
  readonly amount: string;
  readonly txHash: string | null;
  readonly at: Date | null;
}

/** Who the receipt says was paid: the shown name, and the address and tax id where set. */
export interface ReceiptMerchant {
  readonly name: string;
  readonly address?: string | null | undefined;
  readonly taxId?: string | null | undefined;
}

/**
 * The receipt of a payment: every transfer that counts (final, on the canonical chain or carried home by a
 * mint), oldest first, and every refund that sent the customer something.
 */
export function receiptDocument(
  payment: Payment,
  merchant: ReceiptMerchant,
  transfers: readonly TransferRecord[],
  refunds: readonly RefundRecord[],
): ReceiptDocument {
  const currency = payment.quote.amount.currency.code;
  return {
    merchantName: merchant.name,
    merchantAddress: merchant.address ?? null,
    merchantTaxId: merchant.taxId ?? null,
    reference: payment.reference,
    paymentId: payment.id,
    orderId: payment.orderId,
    title: payment.title,
    description: payment.description,
    lines: shownLines(payment.lineItems),
    paidAt: payment.paidAt ?? payment.updatedAt,
    amount: formatMoney(payment.quote.amount),
    currency,
    usdcPrice: formatUsdc(payment.quote.usdcBaseUnits),
    usdcPaid: formatUsdc(payment.amountReceivedBaseUnits),
    rate: currency === 'USDC' ? null : formatRate(payment.quote.rate),
    transfers: transfers
      .filter((t) => t.final && (!t.orphaned || t.carriedHome === 'minted'))
      .sort((a, b) => a.blockTimestamp.getTime() - b.blockTimestamp.getTime())
      .map((t) => ({
        chainId: t.chainId,
        txHash: t.txHash,
        amount: formatUsdc(t.amountBaseUnits),
        at: t.blockTimestamp,
      })),
    refunds: refunds.flatMap(({ deposit }) => {
      const funding = refundFundingOf(deposit);
      if (funding.sentBaseUnits <= 0n) return [];
      return [
        {
          amount: formatUsdc(funding.sentBaseUnits),
          txHash: funding.txid,
          at: deposit?.payout.sentAt ?? null,
        },
      ];
    }),
  };
}
