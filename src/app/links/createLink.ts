import type { KeyMode } from '../../domain/credentials.ts';
import type { Currency } from '../../domain/currencies.ts';
import { findCurrency } from '../../domain/currencies.ts';
import { checkEvery, ValidationError } from '../../domain/errors.ts';
import { parseFutureMoment } from '../../domain/futureMoment.ts';
import { assertLineItemsAddUp, type LineItem, parseLineItemsIn } from '../../domain/lineItems.ts';
import { type Money, parseAmount, parseCurrency } from '../../domain/money.ts';
import {
  type PaymentExtras,
  type PaymentExtrasInput,
  parsePaymentExtras,
} from '../../domain/paymentExtras.ts';
import {
  type LinkPrice,
  MAX_LINK_QUANTITY,
  MAX_LINK_USES,
  MAX_SUGGESTED_AMOUNTS,
  type PaymentLink,
} from '../../domain/paymentLink.ts';
import { optionalRedirectUrl } from '../../domain/redirectUrl.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_TITLE_LENGTH, optionalShownText } from '../../domain/text.ts';
import { timeOrderedId } from '../payments/timeOrderedId.ts';
import type { Clock } from '../shared/ports.ts';
import type { LinkStore } from './ports.ts';

export interface CreateLinkDeps {
  readonly links: LinkStore;
  readonly clock: Clock;
  /** Plain http allowed for the URLs (the sandbox), as for webhook URLs. */
  readonly webhookAllowPrivate: boolean;
}

/** A link as a client asks for it: amounts as exact decimal text, counts as integer text. */
export interface CreateLinkInput extends PaymentExtrasInput {
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly imageUrl?: string | undefined;
  readonly priceType?: string | undefined;
  readonly currency?: string | undefined;
  readonly amount?: string | undefined;
  readonly maxQuantity?: string | undefined;
  readonly minAmount?: string | undefined;
  readonly maxAmount?: string | undefined;
  readonly suggestedAmounts?: readonly string[] | undefined;
  readonly maxUses?: string | undefined;
  readonly endsAt?: string | undefined;
  /** As parsed from JSON: checked here against the fixed price of one (domain/lineItems.ts). */
  readonly lineItems?: unknown;
}

/** Creates a reusable link of the key's mode. Nothing else is created: no payment, no deposit address. */
export async function createLink(
  deps: CreateLinkDeps,
  merchantId: string,
  mode: KeyMode,
  input: CreateLinkInput,
): Promise<PaymentLink> {
  const now = deps.clock.now();
  const urls = { allowInsecure: deps.webhookAllowPrivate };
  const [title, description, imageUrl, price, maxUses, endsAt, extras, items] = checkEvery<
    [
      string,
      string | null,
      string | null,
      LinkPrice,
      number | null,
      Date | null,
      PaymentExtras,
      readonly LineItem[] | null,
    ]
  >([
    () => parseTitle(input.title),
    () => parseDescription(input.description),
    () => optionalRedirectUrl('image_url', input.imageUrl, urls),
    () => parseLinkPrice(input),
    () => parseCount('max_uses', input.maxUses, MAX_LINK_USES),
    () => parseFutureMoment('ends_at', input.endsAt, now),
    () => parsePaymentExtras(input, urls),
    () => parseLinkLineItems(input),
  ]);
  // Checked once the price is: the lines of one purchase add up to the price of one.
  if (items !== null && price.type === 'fixed') assertLineItemsAddUp(items, price.unit);
  const link: PaymentLink = {
    id: timeOrderedId(),
    merchantId,
    mode,
    title,
    description,
    imageUrl,
    price,
    deactivatedAt: null,
    maxUses,
    endsAt,
    ...extras,
    lineItems: items,
    createdAt: now,
    updatedAt: now,
  };
  await deps.links.insert(link);
  return link;
}

export function parseTitle(input: string | undefined): string {
  const title = optionalShownText('title', input, MAX_TITLE_LENGTH);
  if (title === null) throw new ValidationError('title', 'is required');
  return title;
}

export function parseDescription(input: string | undefined): string | null {
  return optionalShownText('description', input, MAX_DESCRIPTION_LENGTH);
}

/**
 * A fixed price's lines, in its currency (they must add up to `amount`, the price of one); an open amount has
 * none: no list of lines adds up to whatever the payer types.
 */
function parseLinkLineItems(input: CreateLinkInput): readonly LineItem[] | null {
  if (input.priceType === 'open' && input.lineItems !== undefined && input.lineItems !== null)
    throw new ValidationError('line_items', 'is only for price_type fixed');
  return parseLineItemsIn(input.lineItems, findCurrency(input.currency?.trim() ?? ''));
}

export function parseCount(field: string, input: string | undefined, max: number): number | null {
  if (input === undefined) return null;
  const message = `must be an integer from 1 to ${max}`;
  if (!/^\d{1,9}$/.test(input.trim())) throw new ValidationError(field, message);
  const count = Number(input.trim());
  if (count < 1 || count > max) throw new ValidationError(field, message);
  return count;
}

/** The price: `fixed` (amount, max_quantity) or `open` (min_amount, max_amount, suggested_amounts). */
function parseLinkPrice(input: CreateLinkInput): LinkPrice {
  if (input.priceType !== 'fixed' && input.priceType !== 'open')
    throw new ValidationError('price_type', 'must be fixed or open');
  const currency = parseCurrency('currency', input.currency);
  if (input.priceType === 'fixed') {
    const [unit, maxQuantity] = checkEvery<[Money, number | null]>([
      () => requiredAmount('amount', input.amount, currency),
      () => parseCount('max_quantity', input.maxQuantity, MAX_LINK_QUANTITY),
    ]);
    const stray = [
      input.minAmount !== undefined && 'min_amount',
      input.maxAmount !== undefined && 'max_amount',
      input.suggestedAmounts !== undefined && 'suggested_amounts',
    ].filter((field): field is string => field !== false);
    if (stray.length > 0)
      throw new ValidationError(stray.map((field) => ({ field, message: 'is only for price_type open' })));
    return { type: 'fixed', unit, maxQuantity: maxQuantity ?? 1 };
  }
  if (input.amount !== undefined || input.maxQuantity !== undefined)
    throw new ValidationError(
      input.amount !== undefined ? 'amount' : 'max_quantity',
      'is only for price_type fixed',
    );
  const [min, max, suggested] = checkEvery<[Money, Money, Money[]]>([
    () => requiredAmount('min_amount', input.minAmount, currency),
    () => requiredAmount('max_amount', input.maxAmount, currency),
    () => {
      const amounts = input.suggestedAmounts ?? [];
      if (amounts.length > MAX_SUGGESTED_AMOUNTS)
        throw new ValidationError('suggested_amounts', `must hold at most ${MAX_SUGGESTED_AMOUNTS} amounts`);
      return amounts.map((amount) => parseAmount('suggested_amounts', amount, currency));
    },
  ]);
  if (min.minorUnits > max.minorUnits)
    throw new ValidationError('max_amount', 'must not be below min_amount');
  if (suggested.some((s) => s.minorUnits < min.minorUnits || s.minorUnits > max.minorUnits))
    throw new ValidationError('suggested_amounts', 'must each be from min_amount to max_amount');
  return { type: 'open', currency, min, max, suggested };
}

function requiredAmount(field: string, input: string | undefined, currency: Currency): Money {
  if (input === undefined) throw new ValidationError(field, 'is required');
  return parseAmount(field, input, currency);
}
