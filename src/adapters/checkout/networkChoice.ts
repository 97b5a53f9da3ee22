import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import type { Language } from '../web/language.ts';
import { LOCALES } from '../web/localeFormat.ts';
import type { CheckoutView, NetworkOffer } from './checkoutView.ts';
import type { Messages } from './messages/index.ts';
import { usdcField as usdc } from './scriptedPage.ts';

/*
 * The payment page's networks (decision 0033): the choice where a payment is offered on several, and the warning
 * that names them. renderPage.ts puts them in the pay stage; checkout.js switches the network shown in place.
 */

/** What these parts say: the page's messages and language, and the amount due as the page writes it. */
interface NetworkWords {
  readonly m: Messages;
  readonly language: Language;
  /** The amount still to send, formatted for the language ("27,00"). */
  readonly remaining: string;
}

/** The payment's QR code, with the request it encodes by default (the home chain's). */
export function qrUrl(view: CheckoutView): string {
  return `/pay/${view.paymentId}/qr.svg`;
}

/** The payment's QR code on one network: `chain` only where there is a choice, so a one-network page is as it was. */
export function qrSrc(view: CheckoutView, chainId: number): string {
  const chain = view.offers.length > 1 ? `chain=${chainId}&` : '';
  return `${qrUrl(view)}?${chain}amount=${view.remainingBaseUnits.toString()}`;
}

/**
 * Gasless payment on this network: where the checkout offers it and that chain has a gasless relayer (its
 * `gasless` flag), home or source alike (decision 0012): the page signs on the network chosen (gaslessRoutes.ts).
 */
export function offersGasless(offer: NetworkOffer, gasless: boolean | undefined): boolean {
  return gasless === true && offer.network.gasless;
}

/**
 * Where the payment is offered on several networks: a choice of them, home first and chosen by default. With the
 * script, radio buttons in a fieldset (a keyboard moves through them with the arrow keys, a screen reader names
 * the group) that change the page in place (checkout.js). Without it — the page's policy allows no form — the
 * same choice as links that show the page again on that network (`?network=`), the chosen one marked current;
 * the script hides them and shows the radios. Each radio carries what the script needs of its network: its
 * label, token, request (data-request) and QR text, and the wallet's chain settings.
 */
export function networkChoice(
  view: CheckoutView,
  chosen: NetworkOffer,
  words: NetworkWords & { readonly gasless: boolean | undefined },
): SafeHtml | null {
  const { m, language, remaining } = words;
  if (view.offers.length < 2) return null;
  const option = (offer: NetworkOffer) => {
    const { network } = offer;
    return html`<label class="network-option"><input type="radio" name="network" value="${network.chainId}"${offer === chosen ? html` checked` : null}
        data-chain-name="${network.name}" data-rpc-url="${network.publicRpcUrl ?? ''}" data-native-symbol="${network.nativeCurrencySymbol ?? 'POL'}"
        data-explorer-url="${network.explorerUrl}" data-token="${offer.tokenAddress}" data-gasless-here="${offersGasless(offer, words.gasless) ? 'true' : ''}"
        data-request="${offer.paymentLink}"
        data-label="${fill(m.networkValue, { network: network.name, chainId: network.chainId })}"
        data-qr-alt="${fill(m.qrAlt, { amount: remaining, network: network.name, address: view.deposit.depositAddress })}">
      <span>${network.name}</span></label>`;
  };
  const link = (offer: NetworkOffer) =>
    html`<li><a class="network-option" href="/pay/${view.paymentId}?network=${offer.network.chainId}&lang=${language}"${offer === chosen ? html` aria-current="true"` : null}>${offer.network.name}</a></li>`;
  return html`<div class="network-choice">
    <fieldset data-network-choice aria-describedby="network-hint" hidden>
      <legend>${m.networkChoice}</legend>
      <div class="network-options">${view.offers.map(option)}</div>
    </fieldset>
    <nav data-network-links aria-labelledby="network-links">
      <p class="legend" id="network-links">${m.networkChoice}</p>
      <ul class="network-options">${view.offers.map(link)}</ul>
    </nav>
    <p class="muted small" id="network-hint">${m.networkChoiceHint}</p>
  </div>`;
}

/** What must not be sent: any other token, or USDC on a network the payment is not offered on — each named. */
export function networkWarning(view: CheckoutView, { m, language, remaining }: NetworkWords): SafeHtml {
  const amount = usdc(remaining, 'remaining');
  if (view.offers.length > 1) {
    // "Polygon, Base or Arbitrum", as the page's language says a choice.
    const networks = new Intl.ListFormat(LOCALES[language], { type: 'disjunction' }).format(
      view.offers.map((o) => o.network.name),
    );
    return html`<div class="warning" role="note">
    <p><strong>${format(m.warningTitleMany, { networks })}</strong></p>
    <p>${format(m.warningBodyMany, { amount })}</p>
  </div>`;
  }
  return html`<div class="warning" role="note">
    <p><strong>${format(m.warningTitle, { network: view.network.name })}</strong></p>
    <p>${format(m.warningBody, { amount, network: view.network.name, chainId: view.deposit.chainId })}</p>
  </div>`;
}
