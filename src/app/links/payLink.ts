import { PaylinkError } from '../../domain/errors.ts';
import type { Language } from '../../domain/language.ts';
import { type LineItem, lineItemsInput, lineItemsTimes } from '../../domain/lineItems.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { formatMoney, type Money } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import {
  assertLinkAvailable,
  chooseLinkAmount,
  type PaymentLink,
  USED_UP,
} from '../../domain/paymentLink.ts';
import { type CreatePaymentDeps, createPayment } from '../payments/createPayment.ts';
import type { LinkStore } from './ports.ts';

export interface PayLinkDeps extends CreatePaymentDeps {
  readonly links: LinkStore;
}

/** What the payer chose on the link's page: a quantity (fixed price) or an amount (open amount), as text. */
export interface LinkChoice {
  readonly amount?: string | undefined;
  readonly quantity?: string | undefined;
  readonly customerEmail?: string | undefined;
  /** The language the link's page was shown in: the payer's, for the e-mails to them (decision 0025). */
  readonly language?: Language | undefined;
}

/**
 * A payment from a reusable link, once the payer has committed to an amount: the choice is checked against the
 * link (active, not ended, uses left, amount within bounds), then the payment is created as any other (quote,
 * deposit address, expiry) in the link's mode, carrying the link's id, URLs and metadata. Viewing a link creates
 * nothing; only this does.
 *
 * `merchant` is the link's owner; a link of another merchant (or mode) is not found.
 */
export async function payLink(
  deps: PayLinkDeps,
  merchant: Merchant,
  linkId: string,
  mode: Payment['mode'],
  choice: LinkChoice,
): Promise<Payment> {
  const link = await deps.links.findForMerchant(merchant.id, linkId.toLowerCase(), mode);
  if (!link) throw new PaylinkError('NOT_FOUND', 'Payment link not found');
  // The amount first: a payer's mistake is theirs to fix whatever the link's state.
  const price = chooseLinkAmount(link.price, choice);
  const now = deps.clock.now();
  assertLinkAvailable(link, await deps.links.usage(link.id, now), now);
  const { maxUses } = link;
  return createPayment(
    deps,
    merchant,
    {
      amount: formatMoney(price),
      currency: price.currency.code,
      customerEmail: choice.customerEmail,
      successUrl: link.successUrl ?? undefined,
      cancelUrl: link.cancelUrl ?? undefined,
      metadata: link.metadata ?? undefined,
      title: link.title,
      description: link.description ?? undefined,
      lineItems: link.lineItems ? lineItemsInput(linkLineItems(link, price)) : undefined,
      linkId: link.id,
      payerLanguage: choice.language,
    },
    {
      mode: link.mode,
      // A limited link counts its uses again as the payment goes in: the check above may be a moment old.
      ...(maxUses === null
        ? {}
        : {
            insert: async (payment: Payment) => {
              if (!(await deps.links.insertPaymentWithinUses(payment, maxUses, deps.clock.now())))
                throw new PaylinkError('LINK_UNAVAILABLE', USED_UP);
            },
          }),
    },
  );
}

/** The link's lines for one payment: a fixed price bought n times holds each line n times over. */
function linkLineItems(link: PaymentLink, price: Money): readonly LineItem[] {
  const lines = link.lineItems ?? [];
  if (link.price.type !== 'fixed') return lines;
  return lineItemsTimes(lines, Number(price.minorUnits / link.price.unit.minorUnits));
}
