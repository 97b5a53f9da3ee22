import type { KeyMode } from './credentials.ts';
import type { Currency } from './currencies.ts';
import { PaylinkError, ValidationError } from './errors.ts';
import type { LineItem } from './lineItems.ts';
import type { Metadata } from './metadata.ts';
import { formatMoney, type Money, parseAmount } from './money.ts';

/**
 * A reusable link ("payment page", issue 28): one URL many payers pay through. It holds no deposit address and
 * no quote: each payer who commits to an amount gets a normal payment carrying the link's id.
 */
export interface PaymentLink {
  readonly id: string;
  readonly merchantId: string;
  /** The mode of the key that made it: its payments are of this mode too. */
  readonly mode: KeyMode;
  readonly title: string;
  readonly description: string | null;
  readonly imageUrl: string | null;
  readonly price: LinkPrice;
  /** Null while the link takes payments; set once, by deactivation, for good. */
  readonly deactivatedAt: Date | null;
  /** Payments the link may take at most (paid ones, and those still open: see `linkUnavailable`). */
  readonly maxUses: number | null;
  /** No payment is created from the link from this moment on. */
  readonly endsAt: Date | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  readonly metadata: Metadata | null;
  /** What one purchase holds, adding up to a fixed price's `unit` (domain/lineItems.ts); null: not itemized. */
  readonly lineItems: readonly LineItem[] | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * A fixed price, of which the payer may take 1 to `maxQuantity` (1: no choice), or an open amount the payer
 * types, from `min` to `max` inclusive, with suggestions (all in one currency).
 */
export type LinkPrice =
  | { readonly type: 'fixed'; readonly unit: Money; readonly maxQuantity: number }
  | {
      readonly type: 'open';
      readonly currency: Currency;
      readonly min: Money;
      readonly max: Money;
      readonly suggested: readonly Money[];
    };

export const MAX_LINK_QUANTITY = 1_000;
export const MAX_SUGGESTED_AMOUNTS = 6;
export const MAX_LINK_USES = 1_000_000;

/** What a link has taken so far: the payments counted against `maxUses`. */
export interface LinkUsage {
  /** Payments paid through the link. */
  readonly paid: number;
  /** Payments not paid yet that may still be (pending or processing, not expired). */
  readonly open: number;
}

/** Every use is taken, some by payments still open: one frees up if such a payment expires. */
export const USED_UP = 'This payment link has reached its limit of uses';
/** Every use is paid: the link takes nothing more, ever. */
export const SOLD_OUT = 'This payment link is sold out: every use has been paid';

/**
 * Why no payment can be made from the link now, if anything: deactivated, ended (`endsAt` itself is past), or
 * every use taken. A use is a paid payment or one still open: a payer who abandons frees the place when that
 * payment expires, and payers in flight never take the link past its limit one after another.
 */
export function linkUnavailable(link: PaymentLink, usage: LinkUsage, now: Date): string | undefined {
  if (link.deactivatedAt !== null) return 'This payment link has been deactivated';
  if (link.endsAt !== null && now.getTime() >= link.endsAt.getTime()) return 'This payment link has ended';
  if (link.maxUses !== null && usage.paid >= link.maxUses) return SOLD_OUT;
  if (link.maxUses !== null && usage.paid + usage.open >= link.maxUses) return USED_UP;
  return undefined;
}

/** LINK_UNAVAILABLE when the link takes no payment now. */
export function assertLinkAvailable(link: PaymentLink, usage: LinkUsage, now: Date): void {
  const reason = linkUnavailable(link, usage, now);
  if (reason) throw new PaylinkError('LINK_UNAVAILABLE', reason);
}

/**
 * The price of one payment from the link, from what the payer chose: for a fixed price a quantity (an integer
 * from 1 to the link's maximum, 1 when not given), for an open amount the amount (in the link's currency, from
 * its minimum to its maximum, both included).
 */
export function chooseLinkAmount(
  price: LinkPrice,
  choice: { readonly amount?: string | undefined; readonly quantity?: string | undefined },
): Money {
  if (price.type === 'fixed') {
    if (choice.amount !== undefined)
      throw new ValidationError('amount', 'must not be given: this link has a fixed price');
    const quantity = choice.quantity === undefined ? 1n : parseQuantity(choice.quantity, price.maxQuantity);
    return { currency: price.unit.currency, minorUnits: price.unit.minorUnits * quantity };
  }
  if (choice.quantity !== undefined)
    throw new ValidationError('quantity', 'must not be given: this link has an open amount');
  if (choice.amount === undefined) throw new ValidationError('amount', 'is required');
  const amount = parseAmount('amount', choice.amount, price.currency);
  if (amount.minorUnits < price.min.minorUnits || amount.minorUnits > price.max.minorUnits) {
    throw new ValidationError(
      'amount',
      `must be from ${formatMoney(price.min)} to ${formatMoney(price.max)} ${price.currency.code}`,
    );
  }
  return amount;
}

function parseQuantity(text: string, max: number): bigint {
  const message = `must be an integer from 1 to ${max}`;
  if (!/^\d{1,7}$/.test(text.trim())) throw new ValidationError('quantity', message);
  const quantity = BigInt(text.trim());
  if (quantity < 1n || quantity > BigInt(max)) throw new ValidationError('quantity', message);
  return quantity;
}
