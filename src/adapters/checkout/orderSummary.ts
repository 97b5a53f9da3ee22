import type { ShownLine } from '../../domain/lineItems.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import { formatPriceAmount } from '../web/localeFormat.ts';
import type { Messages } from './messages/index.ts';

/** What a payment sells, as a page shows it (decision 0051): its title, description and lines. */
export interface SoldSummary {
  readonly title: string | null;
  readonly description: string | null;
  readonly lines: readonly ShownLine[];
}

/**
 * What the customer buys, above the stages of the checkout: the title as a heading, the description, and each
 * line with its quantity × unit price and its total, in the price's currency. Nothing when the payment says
 * none of them (a payment created before, or without them).
 */
export function orderSummary(
  sold: SoldSummary,
  currency: string,
  language: Language,
  m: Messages,
): SafeHtml | undefined {
  if (sold.title === null && sold.description === null && sold.lines.length === 0) return undefined;
  const money = (decimal: string) => `${formatPriceAmount(decimal, language)} ${currency}`;
  const lines =
    sold.lines.length === 0
      ? null
      : html`<table class="items"><caption class="visually-hidden">${m.orderSummary}</caption><tbody>${sold.lines.map(
          (line) =>
            html`<tr><th scope="row">${line.name}<span class="each">${format(m.lineQuantity, {
              quantity: String(line.quantity),
              price: money(line.unitPrice),
            })}</span></th><td>${money(line.total)}</td></tr>`,
        )}</tbody></table>`;
  return html`<section class="order" aria-label="${m.orderSummary}">
${sold.title === null ? null : html`<h2>${sold.title}</h2>`}${sold.description === null ? null : html`<p class="description">${sold.description}</p>`}${lines}
</section>`;
}
