import { formatUsdc } from '../../domain/money.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import {
  formatPriceAmount,
  formatRateValue,
  formatUsdcAmount,
  LOCALES,
  momentStyle,
} from '../web/localeFormat.ts';
import type { CheckoutView, NetworkOffer } from './checkoutView.ts';
import { MESSAGES, type Messages } from './messages/index.ts';
import { networkChoice, networkWarning, offersGasless, qrSrc, qrUrl } from './networkChoice.ts';
import { orderSummary } from './orderSummary.ts';
import { hiddenAttr, messagePage, moment, type PageAssets } from './pageLayout.ts';
import { endStage, scriptedPage, usdcField as usdc, waitingStage } from './scriptedPage.ts';
import { transferItem, transferList } from './transferList.ts';

/**
 * The checkout's HTML, rendered on the server so that the amount, the address and the network are readable
 * without JavaScript. Every stage of the payment is in the page; only the current one is visible, and the
 * script (assets/checkout.js) switches between them and fills in the numbers as the status changes — with
 * textContent only, so the text it inserts is never markup.
 */
export interface CheckoutPageInput {
  readonly view: CheckoutView;
  readonly language: Language;
  readonly assets: PageAssets;
  readonly pollIntervalMs: number;
  /**
   * Whether this checkout offers gasless payment (EIP-3009) at all: the page then asks `gasless.json` whether
   * this payment's token supports it. Absent or false: transfers with gas only, and no request for it.
   */
  readonly gasless?: boolean | undefined;
  /**
   * The network shown first, by chain id: a `?network=` the customer chose without the script. Absent, or not
   * one the payment is offered on: the home chain (decision 0033).
   */
  readonly chosenChainId?: number | undefined;
  /** The merchant's logo (brandRoutes.ts); absent: none. */
  readonly logo?: SafeHtml | null | undefined;
}

export function renderCheckoutPage(input: CheckoutPageInput): string {
  const { view, language } = input;
  const page = checkoutWords(view, language, input.chosenChainId);
  const { m } = page;
  return scriptedPage({
    language,
    id: 'checkout',
    documentTitle: m.documentTitle,
    assets: input.assets,
    script: input.assets.script,
    data: scriptSettings(input, page),
    header: {
      logo: input.logo,
      eyebrow: m.paymentTo,
      merchant: view.merchantName,
      priceLabel: m.price,
      price: html`<strong>${page.price}</strong>`,
      note: rateLine(page),
    },
    ...withFacts(orderSummary(view.sold, view.priceCurrency, language, m)),
    stages: [
      payStage(page, input),
      confirmingStage(page),
      paidStage(page),
      expiredStage(page),
      failedStage(page),
    ],
    scripted: html`<template data-transfer-template>${transferItem(null, language, m)}</template>`,
    connectionLost: m.connectionLost,
    reference: { label: m.reference, id: view.paymentId },
    nonCustodial: m.nonCustodial,
    languageQuery: page.chosen === view.offers[0] ? undefined : `network=${page.chosen.network.chainId}`,
  });
}

/** The summary of what is bought above the stages, when the payment says what it sells. */
const withFacts = (facts: SafeHtml | undefined) => (facts === undefined ? {} : { facts });

/** What the stages of the page say over and over: the view's amounts and moments in the customer's language. */
interface CheckoutWords {
  readonly view: CheckoutView;
  readonly language: Language;
  readonly m: Messages;
  readonly remaining: string;
  readonly required: string;
  readonly detected: string;
  readonly received: string;
  readonly price: string;
  /** The expiry with its date, as the expiry sentences say it. */
  readonly expiry: SafeHtml;
  readonly transfers: SafeHtml;
  readonly returnLink: SafeHtml | null;
  /** Where an expired or incomplete payment sends the customer back: the cancel_url, else the older return_url. */
  readonly leaveLink: SafeHtml | null;
  /** The network shown: its name, links and QR code; the script changes it with the customer's choice. */
  readonly chosen: NetworkOffer;
}

function checkoutWords(view: CheckoutView, language: Language, chosenChainId?: number): CheckoutWords {
  const m = MESSAGES[language];
  const home = view.offers[0];
  if (!home) throw new Error('a payment is offered on its home chain at least');
  const amount = (baseUnits: bigint) => formatUsdcAmount(formatUsdc(baseUnits), language);
  return {
    view,
    language,
    m,
    remaining: amount(view.remainingBaseUnits),
    required: amount(view.requiredBaseUnits),
    detected: amount(view.detectedBaseUnits),
    received: amount(view.receivedBaseUnits),
    price: `${formatPriceAmount(view.priceAmount, language)} ${view.priceCurrency}`,
    expiry: moment(view.expiresAt, language, 'date'),
    transfers: transferList(view.transfers, language, m),
    returnLink: view.returnUrl
      ? html`<p><a class="button primary" href="${view.returnUrl}" data-return-link>${format(m.returnToMerchant, { merchant: view.merchantName })}</a></p>`
      : null,
    // Never the success_url for a payment that did not succeed: the shop would read it as paid.
    leaveLink: view.cancelUrl
      ? html`<p><a class="button primary" href="${view.cancelUrl}">${format(m.backToMerchant, { merchant: view.merchantName })}</a></p>`
      : view.returnUrl && !view.returnsOnSuccess
        ? html`<p><a class="button primary" href="${view.returnUrl}">${format(m.returnToMerchant, { merchant: view.merchantName })}</a></p>`
        : null,
    chosen: view.offers.find((o) => o.network.chainId === chosenChainId) ?? home,
  };
}

/** What the script works with: where to poll, the chain and token for a wallet, and gasless payment if offered. */
function scriptSettings(input: CheckoutPageInput, { chosen }: CheckoutWords): [string, string | number][] {
  const { view } = input;
  const { network } = chosen;
  const settings: [string, string | number][] = [
    ['status-url', `/pay/${view.paymentId}/status.json`],
    ['qr-url', qrUrl(view)],
    ['poll-ms', input.pollIntervalMs],
    ['locale', LOCALES[input.language]],
    ['stage', view.stage],
    ['seconds-left', view.secondsLeft],
    ['remaining', view.remainingBaseUnits.toString()],
    ['chain-id', network.chainId],
    ['chain-name', network.name],
    ['rpc-url', network.publicRpcUrl ?? ''],
    ['native-symbol', network.nativeCurrencySymbol ?? 'POL'],
    ['explorer-url', network.explorerUrl],
    ['token', chosen.tokenAddress],
    ['gasless-here', offersGasless(chosen, input.gasless) ? 'true' : ''],
    ['deposit', view.deposit.depositAddress],
  ];
  if (input.gasless)
    settings.push(
      ['gasless-url', `/pay/${view.paymentId}/gasless.json`],
      ['authorization-url', `/pay/${view.paymentId}/authorization`],
    );
  return settings;
}

/** The locked rate, hidden once the payment has ended; none for a price in USDC. */
function rateLine({ view, language, m, price, required }: CheckoutWords): SafeHtml | null {
  if (view.rate === null) return null;
  const now = new Date(view.expiresAt.getTime() - view.secondsLeft * 1000);
  const ended = view.stage === 'paid' || view.stage === 'expired' || view.stage === 'failed';
  // The rate line's lock reads "until 14:05" when it is near; the expiry sentences always name the date.
  return html`<p class="rate muted small" data-rate${hiddenAttr(ended)}>${format(m.rateLine, {
    price,
    usdc: `${required} USDC`,
    rate: formatRateValue(view.rate, language),
    pair: `${view.priceCurrency}/USDC`,
    time: moment(view.expiresAt, language, momentStyle(view.expiresAt, now)),
  })}</p>`;
}

/** How to pay: the amount, network and address, a QR code, a wallet link and the browser wallet's button. */
function payStage(page: CheckoutWords, input: CheckoutPageInput): SafeHtml {
  const { view, m } = page;
  return waitingStage(
    'pay',
    view.stage,
    m.waitingTitle,
    [
      html`<p class="muted">${m.waitingBody}</p>`,
      html`<p class="fee" role="note">${m.exchangeFee}</p>`,
      partialNotice(page),
      networkChoice(view, page.chosen, {
        m,
        language: page.language,
        remaining: page.remaining,
        gasless: input.gasless,
      }),
      // The amount, then the one-tap wallet where the browser has one; the rest is for a wallet elsewhere.
      amountFact(page),
      browserWallet(page),
      paymentFacts(page),
      qrCodes(page),
      networkWarning(view, { m, language: page.language, remaining: page.remaining }),
      html`<p class="muted small">${format(m.expiresAt, { time: page.expiry })}</p>`,
      html`<noscript><p class="notice">${m.noScript}</p></noscript>`,
      shopLink(page),
    ],
    html`<p class="countdown"><span>${m.timeLeft}</span> <time data-countdown datetime="${view.expiresAt.toISOString()}">${formatCountdown(view.secondsLeft)}</time></p>`,
  );
}

/** After a part of the price arrived: what arrived, and what is left to send. */
function partialNotice({ view, m, detected, remaining }: CheckoutWords): SafeHtml {
  const partial = view.stage === 'pay' && view.detectedBaseUnits > 0n;
  return html`<div class="notice" data-partial${hiddenAttr(!partial)}>
    <p><strong>${m.partialTitle}</strong></p>
    <p>${format(m.partialBody, { received: usdc(detected, 'detected'), remaining: usdc(remaining, 'remaining') })}</p>
    <p data-partial-confirming${hiddenAttr(view.detectedBaseUnits === view.receivedBaseUnits)}>${m.partialConfirming}</p>
  </div>`;
}

/** What to send, first on the page (the markup unindented, as the next: every byte counts in its 60 KB). */
function amountFact({ view, m, remaining }: CheckoutWords): SafeHtml {
  return html`<dl class="facts">
<div class="fact">
<dt>${m.amountToSend}</dt>
<dd class="with-action"><span class="amount"><span id="amount" data-field="remaining" data-value="${formatUsdc(view.remainingBaseUnits)}">${remaining}</span> USDC</span>
<button type="button" class="copy" data-copy="amount" aria-label="${m.copyAmount}" data-copied="${m.copied}" hidden>${m.copy}</button></dd>
</div>
</dl>`;
}

/** Where to send it from a wallet elsewhere: the network, the deposit address and the token. */
function paymentFacts({ view, m, chosen }: CheckoutWords): SafeHtml {
  const { network } = chosen;
  const networkValue = format(m.networkValue, { network: network.name, chainId: network.chainId });
  return html`<dl class="facts">
<div class="fact">
<dt>${m.network}</dt>
<dd data-network-label>${networkValue}</dd>
</div>
<div class="fact">
<dt>${m.depositAddress}</dt>
<dd class="with-action"><code id="deposit-address" class="address">${view.deposit.depositAddress}</code>
<button type="button" class="copy" data-copy="deposit-address" aria-label="${m.copyAddress}" data-copied="${m.copied}" hidden>${m.copy}</button></dd>
</div>
<div class="fact">
<dt>${m.tokenContract}</dt>
<dd><code class="address small" id="token-address">${chosen.tokenAddress}</code></dd>
</div>
</dl>`;
}

/** The wallet link, the payment's QR code (address, token and amount) and the address's alone. */
function qrCodes({ view, m, remaining, chosen }: CheckoutWords): SafeHtml {
  const url = qrUrl(view);
  return html`<div class="qr">
    <p class="open-wallet"><a class="button secondary" data-payment-link href="${chosen.paymentLink}">${m.openInWallet}</a></p>
    <details class="qr-code" data-qr-details open>
      <summary>${m.showQr}</summary>
      <img data-qr src="${qrSrc(view, chosen.network.chainId)}" width="232" height="232"
        alt="${format(m.qrAlt, { amount: remaining, network: chosen.network.name, address: view.deposit.depositAddress })}">
      <p class="muted small">${m.scanHint}</p>
    </details>
    <details class="address-only">
      <summary>${m.addressOnly}</summary>
      <img src="${url}?kind=address" width="200" height="200" loading="lazy"
        alt="${format(m.qrAddressAlt, { address: view.deposit.depositAddress })}">
      <p><code class="address">${view.deposit.depositAddress}</code></p>
    </details>
  </div>`;
}

/**
 * "Pay with browser wallet", hidden until the script finds a wallet, with every outcome it may report (each
 * hidden until then) and the way back to a transfer with gas after a gasless attempt.
 */
function browserWallet({ m, remaining, chosen }: CheckoutWords): SafeHtml {
  // The chosen network's name and id, which the script changes with the choice.
  const network = html`<span data-field="network-name">${chosen.network.name}</span>`;
  const chainId = html`<span data-field="network-chain-id">${chosen.network.chainId}</span>`;
  return html`<div class="wallet" data-wallet hidden>
    <button type="button" class="button primary" id="pay-wallet">${m.payWithWallet}</button>
    <p class="muted small gasless-hint" data-gasless-hint hidden>${m.gaslessHint}</p>
    <div class="wallet-chooser" role="group" aria-labelledby="choose-wallet" data-wallet-chooser hidden>
      <p id="choose-wallet">${m.chooseWallet}</p>
      <ul data-wallet-list></ul>
    </div>
    <template data-wallet-template><li><button type="button" class="button wallet-choice"><img alt="" width="24" height="24" hidden><span>${format(m.payWithNamed, { wallet: html`<span data-wallet-name></span>` })}</span></button></li></template>
    <div class="wallet-messages" aria-live="assertive">
      <p class="wallet-message" data-wallet-message="working" hidden>${m.walletWorking}</p>
      <p class="wallet-message error" data-wallet-message="rejected" hidden>${m.walletRejected}</p>
      <p class="wallet-message error" data-wallet-message="wrong-chain" hidden>${format(m.walletWrongChain, { network, chainId })}</p>
      <p class="wallet-message error" data-wallet-message="insufficient" hidden>${format(
        m.walletInsufficient,
        {
          balance: html`<span data-field="wallet-balance"></span>`,
          amount: html`<span data-field="remaining">${remaining}</span>`,
          network,
        },
      )}</p>
      <p class="wallet-message ok" data-wallet-message="sent" hidden>${format(m.walletSent, { hash: html`<code class="hash" data-field="wallet-tx"></code>` })}</p>
      <p class="wallet-message error" data-wallet-message="error" hidden>${format(m.walletError, { message: html`<span data-field="wallet-error"></span>` })}</p>
      <p class="wallet-message" data-wallet-message="signing" hidden>${m.walletSigning}</p>
      <p class="wallet-message ok" data-wallet-message="signed" hidden>${m.walletSigned}</p>
      <p class="wallet-message error" data-wallet-message="refused" hidden><span data-field="wallet-refusal"></span></p>
    </div>
    <p class="pay-with-gas" data-pay-with-gas hidden><button type="button" class="link">${m.payWithGas}</button></p>
    <p class="divider"><span>${m.orWallet}</span></p>
  </div>`;
}

function confirmingStage(page: CheckoutWords): SafeHtml {
  const { view, m, detected, transfers } = page;
  return waitingStage('confirming', view.stage, m.confirmingTitle, [
    html`<p>${format(m.confirmingBody, { amount: usdc(detected, 'detected') })}</p>`,
    transfers,
    html`<noscript><p class="notice">${m.noScript}</p></noscript>`,
    shopLink(page),
  ]);
}

/**
 * The way back to the shop (its cancel_url) while the payment waits: leaving cancels nothing, and a transfer
 * already sent still counts, which the line beside it says.
 */
function shopLink({ view, m }: CheckoutWords): SafeHtml | null {
  if (!view.cancelUrl) return null;
  return html`<p class="small" data-leave><a href="${view.cancelUrl}">${format(m.backToMerchant, { merchant: view.merchantName })}</a><br>
    <span class="muted">${m.leavingCancelsNothing}</span></p>`;
}

function paidStage(page: CheckoutWords): SafeHtml {
  const { view, m, received, transfers, returnLink, language } = page;
  const overpaid = formatUsdcAmount(formatUsdc(view.overpaidBaseUnits), language);
  const paid = usdc(received, 'received');
  return endStage('paid', view.stage, 'done', m.paidTitle, [
    // A price set in a fiat currency is named in it, as the customer chose or saw it; the USDC beside it.
    html`<p>${format(m.paidBody, { merchant: view.merchantName, amount: view.rate === null ? paid : html`${page.price} (${paid})` })}</p>`,
    html`<p class="notice" data-overpaid${hiddenAttr(view.overpaidBaseUnits === 0n)}>${format(m.overpaid, { sent: paid, extra: usdc(overpaid, 'overpaid') })}</p>`,
    html`<p class="muted" data-late${hiddenAttr(!view.late)}>${m.paidLate}</p>`,
    transfers,
    returnLink,
    view.returnsOnSuccess ? returnCountdown(page) : null,
  ]);
}

/**
 * The paid page takes the customer back to the shop's success_url by itself after a few seconds (the script
 * counts down and shows this line); "Stay on this page" stops it. Without the script, the link above does.
 */
function returnCountdown({ view, m }: CheckoutWords): SafeHtml {
  return html`<p class="redirect muted" data-redirect hidden><span>${format(m.redirectCountdown, {
    merchant: view.merchantName,
    seconds: html`<span data-redirect-seconds>${RETURN_AFTER_S}</span>`,
  })}</span> <button type="button" class="link" data-redirect-stay>${m.redirectStay}</button></p>`;
}

/** Seconds the paid page waits before taking the customer back (the script counts from the page's number). */
const RETURN_AFTER_S = 5;

function expiredStage({ view, m, expiry, leaveLink }: CheckoutWords): SafeHtml {
  return endStage('expired', view.stage, 'clock', m.expiredTitle, [
    html`<p>${format(m.expiredBody, { time: expiry, merchant: view.merchantName })}</p>`,
    leaveLink,
  ]);
}

function failedStage({ view, m, received, required, transfers, leaveLink }: CheckoutWords): SafeHtml {
  return endStage('failed', view.stage, 'warning', m.failedTitle, [
    html`<p>${format(m.failedBody, { received: usdc(received, 'received'), required: usdc(required, 'required') })}</p>`,
    html`<p>${format(m.failedHelp, { merchant: view.merchantName })}</p>`,
    transfers,
    leaveLink,
  ]);
}

/** The 404 page: the same for an unknown, a malformed and any other id, so it reveals nothing. */
export function renderNotFoundPage(language: Language, assets: PageAssets): string {
  const m = MESSAGES[language];
  return messagePage(language, assets, m.notFoundTitle, m.notFoundBody);
}

/** The 500 page: no detail (those go to the log). */
export function renderErrorPage(language: Language, assets: PageAssets): string {
  const m = MESSAGES[language];
  return messagePage(language, assets, m.errorTitle, m.errorBody);
}

/** "4:05", "59:59", "1:00:00": what the script shows too, so the first paint and the first tick agree. */
function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}
