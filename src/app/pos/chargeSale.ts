import { createHash } from 'node:crypto';
import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { formatMoney, parseCurrency } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import { POS_CHANNEL, type Sale, saleOf, saleTitle } from '../../domain/posSale.ts';
import { MAX_TITLE_LENGTH } from '../../domain/text.ts';
import { type CreatePaymentOnceDeps, createPaymentOnce } from '../payments/createPaymentOnce.ts';
import type { CatalogueStore } from './ports.ts';

export interface ChargeSaleDeps {
  readonly creation: CreatePaymentOnceDeps;
  readonly catalogue: CatalogueStore;
  /** Waits between the looks at a sale whose first tap is still being created. */
  readonly pause?: ((ms: number) => Promise<void>) | undefined;
}

export interface SaleInput {
  /** Made when the counter's form was shown: every tap of that form's "Charge" is the same sale. */
  readonly saleKey: string;
  readonly mode: KeyMode;
  readonly currency: string;
  /** As typed, its decimal mark read as a point; empty: no amount besides the items. */
  readonly amount: string;
  /** Quantities by catalogue item id, as typed. */
  readonly quantities: Readonly<Record<string, string | undefined>>;
  /** Where the receipt goes once paid (the ordinary receipt path); empty: no e-mail. */
  readonly customerEmail: string;
  /** Who rang it up, kept with the sale for the merchant. */
  readonly staffUserId: string;
  /** The name of the typed amount's line among the items ("Amount", in the counter's language). */
  readonly amountLabel: string;
}

const SALE_KEY = /^[A-Za-z0-9-]{8,64}$/;
/** A double tap arrives while the first is being created: it waits for that payment rather than failing. */
const IN_PROGRESS_LOOKS = 50;
const IN_PROGRESS_PAUSE_MS = 100;

/**
 * "Charge" at the counter (decision 0054): the sale's total from the catalogue and the amount typed, created as
 * an ordinary payment through the API's own create (its checks, its idempotency, its mode), marked as the point
 * of sale's in its metadata. A sale of the catalogue's items carries them as its line items (adding up to the
 * price, the typed amount as a line of its own) and their names as its title; an amount alone carries neither.
 * The same form tapped twice is the same payment.
 */
export async function chargeSale(
  deps: ChargeSaleDeps,
  merchant: Merchant,
  input: SaleInput,
): Promise<Payment> {
  if (!SALE_KEY.test(input.saleKey)) throw new ValidationError('sale_key', 'reload the page and try again');
  const currency = parseCurrency('currency', input.currency);
  const sale = saleOf({
    currency,
    catalogue: await deps.catalogue.list(merchant.id),
    quantities: input.quantities,
    amount: input.amount,
  });
  const amount = formatMoney(sale.total);
  const title = saleTitle(sale, MAX_TITLE_LENGTH);
  const lineItems = title === null ? undefined : lineItemsOf(sale, input.amountLabel);
  const customerEmail = input.customerEmail.trim();
  const request = {
    key: `pos-${input.saleKey}`,
    requestHash: createHash('sha256')
      .update(JSON.stringify([input.mode, currency.code, amount, title, lineItems, customerEmail]))
      .digest('hex'),
  };
  const create = () =>
    createPaymentOnce(
      deps.creation,
      merchant,
      {
        amount,
        currency: currency.code,
        customerEmail: customerEmail || undefined,
        title: title ?? undefined,
        lineItems,
        metadata: { [POS_CHANNEL.key]: POS_CHANNEL.value, staff: input.staffUserId },
      },
      request,
      input.mode,
    );
  const pause = deps.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let look = 1; ; look++) {
    try {
      return (await create()).payment;
    } catch (error) {
      if (
        !(error instanceof PaylinkError) ||
        error.code !== 'IDEMPOTENCY_IN_PROGRESS' ||
        look >= IN_PROGRESS_LOOKS
      )
        throw error;
      await pause(IN_PROGRESS_PAUSE_MS);
    }
  }
}

/**
 * The sale's lines as the create takes line items (decimal text, as the API's JSON gives them): the items, then
 * the typed amount as a line of its own.
 */
function lineItemsOf(sale: Sale, amountLabel: string) {
  const typed = sale.typed === null ? [] : [{ name: amountLabel, quantity: 1, unitPrice: sale.typed }];
  return [...sale.items, ...typed].map((line) => ({
    name: line.name,
    quantity: String(line.quantity),
    unit_price: formatMoney(line.unitPrice),
  }));
}
