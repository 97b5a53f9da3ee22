import { shownLines } from '../../domain/lineItems.ts';
import { formatMoney, type Money } from '../../domain/money.ts';
import type { LinkPrice, PaymentLink } from '../../domain/paymentLink.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import { formatPriceAmount } from '../web/localeFormat.ts';
import { MESSAGES, type Messages } from './messages/index.ts';
import { orderSummary } from './orderSummary.ts';
import { languageSwitcher, layout, messagePage, moment, type PageAssets } from './pageLayout.ts';

/**
 * A reusable link's page (`/l/<id>`): what is sold and by whom, then the payer's choice, a quantity of a fixed
 * price or an amount (a suggestion or typed), and an address for the receipt, posted to the same URL. No
 * script: every choice is a form.
 */
export interface LinkPageInput {
  readonly link: PaymentLink;
  readonly merchantName: string;
  /** The merchant's logo (brandRoutes.ts); absent: none. */
  readonly logo?: SafeHtml | null | undefined;
  /** The image, when the page's CSP allows it (https, its origin named); null: no image. */
  readonly imageUrl: string | null;
  readonly language: Language;
  readonly assets: PageAssets;
  /** What the payer chose last time and what was wrong with it, on an answer to a refused choice. */
  readonly refused?: LinkRefusal | undefined;
}

/** What the payer chose last time and what was wrong with it: the fields come back as the payer typed them. */
export interface LinkRefusal {
  readonly problem: LinkProblem;
  readonly amount?: string | undefined;
  readonly email?: string | undefined;
}

/** What the page says was wrong with a post, in the payer's words. */
export type LinkProblem = 'amount' | 'decimals' | 'quantity' | 'email' | 'form' | 'foreign' | 'rate';

export function renderLinkPage(input: LinkPageInput): string {
  const { link, language } = input;
  const m = MESSAGES[language];
  const body = html`<main id="link" class="card">
<header class="merchant">
  ${input.logo ?? null}
  <p class="eyebrow">${format(m.documentTitle, { merchant: input.merchantName })}</p>
  <h1>${link.title}</h1>
  ${priceLine(link.price, language, m)}
</header>
${linkImage(input.imageUrl)}${link.description === null ? null : html`<p class="description">${link.description}</p>`}
${linkLines(link, language, m)}
${problemBox(input, m)}
${link.price.type === 'fixed' ? quantityForm(input, m) : amountForm(input, m)}
<p class="muted small">${m.linkNextStep}</p>
<footer>
  ${languageSwitcher(language)}
</footer>
</main>`;
  return layout({
    language,
    title: format(m.linkDocumentTitle, { title: link.title, merchant: input.merchantName }),
    assets: input.assets,
    body,
    script: null,
  });
}

function money(value: Money, language: Language): string {
  return `${formatPriceAmount(formatMoney(value), language)} ${value.currency.code}`;
}

function priceLine(price: LinkPrice, language: Language, m: Messages): SafeHtml | null {
  if (price.type === 'open') return null;
  return html`<p class="price"><span class="label">${m.price}</span> <strong>${money(price.unit, language)}</strong></p>`;
}

/** What one purchase holds, when the link lists it: its lines, as the payment's checkout shows them. */
function linkLines(link: PaymentLink, language: Language, m: Messages): SafeHtml | undefined {
  if (link.price.type !== 'fixed' || link.lineItems === null) return undefined;
  const sold = { title: null, description: null, lines: shownLines(link.lineItems) };
  return orderSummary(sold, link.price.unit.currency.code, language, m);
}

/** The merchant's image, never sent a referrer; decorative, the title says what it is. */
function linkImage(url: string | null): SafeHtml | null {
  if (url === null) return null;
  return html`<img class="link-image" src="${url}" alt="" referrerpolicy="no-referrer" loading="lazy">
`;
}

function problemBox({ refused, link, language }: LinkPageInput, m: Messages): SafeHtml | null {
  if (!refused) return null;
  const { price } = link;
  let text: SafeHtml | string;
  // The bounds as the hint below the field writes them: in the page's language ("1,00 bis 500,00").
  if (refused.problem === 'amount' && price.type === 'open')
    text = format(m.linkAmountError, {
      min: formatPriceAmount(formatMoney(price.min), language),
      max: formatPriceAmount(formatMoney(price.max), language),
      currency: price.currency.code,
    });
  else if (refused.problem === 'decimals' && price.type === 'open')
    text = format(m.linkDecimalsError, { places: price.currency.minorUnits });
  else if (refused.problem === 'quantity' && price.type === 'fixed')
    text = format(m.linkQuantityError, { max: price.maxQuantity });
  else if (refused.problem === 'email') text = m.linkEmailError;
  else if (refused.problem === 'foreign') text = m.linkForeignForm;
  else if (refused.problem === 'rate') text = m.linkRateLimited;
  else text = m.linkFormError;
  return html`<p class="notice error" role="alert" id="link-error">${text}</p>`;
}

/**
 * The payer's address for the receipt, optional: a link's payer is someone the merchant does not know, and the
 * receipt of a paid payment is the one e-mail sent to an address the payer typed (decision 0024).
 */
function emailField({ refused }: LinkPageInput, m: Messages): SafeHtml {
  const invalid = refused?.problem === 'email';
  return html`<label for="email">${m.linkEmail}</label>
  <input class="amount-input" id="email" name="email" type="email" inputmode="email" autocomplete="email" maxlength="254" aria-describedby="email-use${invalid ? ' link-error' : ''}"${invalid ? html` aria-invalid="true"` : null} value="${refused?.email ?? ''}">
  <p class="muted small" id="email-use">${m.linkEmailUse}</p>`;
}

/** A fixed price: the quantity when the link lets the payer pick one, the receipt's address, and the button. */
function quantityForm(input: LinkPageInput, m: Messages): SafeHtml {
  const { link, language } = input;
  const { price } = link;
  if (price.type !== 'fixed') return html``;
  const quantity =
    price.maxQuantity > 1
      ? html`<label for="quantity">${format(m.linkQuantity, { max: price.maxQuantity })}</label>
  <input class="amount-input" id="quantity" name="quantity" type="number" inputmode="numeric" min="1" max="${price.maxQuantity}" step="1" value="1" required>`
      : null;
  return html`<form class="choice" method="post" action="/l/${link.id}?lang=${language}">
  ${quantity}
  ${emailField(input, m)}
  <button type="submit" class="button primary">${m.linkContinue}</button>
</form>`;
}

/**
 * An open amount, in one form: the suggestions, each a button that chooses its amount at once, then an amount
 * typed within the bounds, the receipt's address and the button. A typed amount wins over the button that sent
 * the form: pressing Enter in a field sends the form with its first button, a suggestion.
 */
function amountForm(input: LinkPageInput, m: Messages): SafeHtml {
  const { link, language, refused } = input;
  const { price } = link;
  if (price.type !== 'open') return html``;
  const hasSuggestions = price.suggested.length > 0;
  const suggestions = hasSuggestions
    ? html`<section class="suggestions" aria-labelledby="choose-amount">
  <h2 id="choose-amount">${m.linkChooseAmount}</h2>
  <ul>${price.suggested.map(
    (amount) =>
      html`<li><button type="submit" class="button" name="amount" value="${formatMoney(amount)}" formnovalidate>${money(amount, language)}</button></li>`,
  )}</ul>
</section>`
    : null;
  const invalid = refused?.problem === 'amount' || refused?.problem === 'decimals';
  return html`<form class="choice" method="post" action="/l/${link.id}?lang=${language}">
  ${suggestions}
  <label for="typed-amount">${hasSuggestions ? format(m.linkOtherAmount, { currency: price.currency.code }) : m.linkChooseAmount}</label>
  <input class="amount-input" id="typed-amount" name="typed_amount" type="text" inputmode="decimal" autocomplete="off"${hasSuggestions ? null : html` required`} aria-describedby="amount-range${invalid ? ' link-error' : ''}"${invalid ? html` aria-invalid="true"` : null} value="${invalid ? (refused?.amount ?? '') : ''}">
  <p class="muted small" id="amount-range">${format(m.linkAmountRange, {
    min: formatPriceAmount(formatMoney(price.min), language),
    max: formatPriceAmount(formatMoney(price.max), language),
    currency: price.currency.code,
  })}</p>
  ${emailField(input, m)}
  <button type="submit" class="button primary">${m.linkContinue}</button>
</form>`;
}

/** Why a link takes no payment now, as its page says it. */
export type LinkUnavailable = 'deactivated' | 'ended' | 'sold-out' | 'used-up' | 'unavailable';

export function renderLinkUnavailablePage(input: {
  readonly reason: LinkUnavailable;
  readonly link: PaymentLink;
  readonly merchantName: string;
  readonly language: Language;
  readonly assets: PageAssets;
}): string {
  const { language, merchantName: merchant } = input;
  const m = MESSAGES[language];
  const [title, text]: [string, SafeHtml] =
    input.reason === 'deactivated'
      ? [m.linkDeactivatedTitle, format(m.linkDeactivatedBody, { merchant })]
      : input.reason === 'ended' && input.link.endsAt
        ? [
            m.linkEndedTitle,
            format(m.linkEndedBody, { merchant, time: moment(input.link.endsAt, language, 'date') }),
          ]
        : input.reason === 'sold-out'
          ? [m.linkSoldOutTitle, format(m.linkSoldOutBody, { merchant })]
          : input.reason === 'used-up'
            ? [m.linkUsedUpTitle, format(m.linkUsedUpBody, {})]
            : [m.linkUnavailableTitle, format(m.linkUnavailableBody, { merchant })];
  return messagePage(language, input.assets, title, text);
}

export function renderLinkNotFoundPage(language: Language, assets: PageAssets): string {
  const m = MESSAGES[language];
  return messagePage(language, assets, m.linkNotFoundTitle, m.linkNotFoundBody);
}
