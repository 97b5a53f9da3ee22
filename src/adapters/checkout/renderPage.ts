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
import type { CheckoutStage, CheckoutTransfer, CheckoutView } from './checkoutView.ts';
import { MESSAGES, type Messages } from './messages/index.ts';
import {
  badge,
  hiddenAttr,
  languageSwitcher,
  layout,
  messagePage,
  moment,
  type PageAssets,
} from './pageLayout.ts';

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
}

export function renderCheckoutPage(input: CheckoutPageInput): string {
  const { view, language } = input;
  const m = MESSAGES[language];
  const amount = (baseUnits: bigint) => formatUsdcAmount(formatUsdc(baseUnits), language);
  const usdc = (text: string, field: string) =>
    html`<strong class="nowrap"><span data-field="${field}">${text}</span> USDC</strong>`;
  const remaining = amount(view.remainingBaseUnits);
  const required = amount(view.requiredBaseUnits);
  const detected = amount(view.detectedBaseUnits);
  const received = amount(view.receivedBaseUnits);
  const now = new Date(view.expiresAt.getTime() - view.secondsLeft * 1000);
  // The rate line's lock reads "until 14:05" when it is near; the expiry sentences always name the date.
  const lock = moment(view.expiresAt, language, momentStyle(view.expiresAt, now));
  const expiry = moment(view.expiresAt, language, 'date');
  const price = `${formatPriceAmount(view.priceAmount, language)} ${view.priceCurrency}`;
  const networkValue = format(m.networkValue, { network: view.network.name, chainId: view.deposit.chainId });
  const qrUrl = `/pay/${view.paymentId}/qr.svg`;
  const returnLink = view.returnUrl
    ? html`<p><a class="button primary" href="${view.returnUrl}">${format(m.returnToMerchant, { merchant: view.merchantName })}</a></p>`
    : null;
  const hidden = (stage: CheckoutStage) => view.stage !== stage;
  const partial = view.stage === 'pay' && view.detectedBaseUnits > 0n;
  const ended = view.stage === 'paid' || view.stage === 'expired' || view.stage === 'failed';
  const rateLine =
    view.rate === null
      ? null
      : html`<p class="rate muted small" data-rate${hiddenAttr(ended)}>${format(m.rateLine, {
          price,
          usdc: `${required} USDC`,
          rate: formatRateValue(view.rate, language),
          pair: `${view.priceCurrency}/USDC`,
          time: lock,
        })}</p>`;
  const transfers = transferList(view.transfers, language, m);

  const body = html`<main id="checkout" class="card"
  data-status-url="/pay/${view.paymentId}/status.json"
  data-qr-url="${qrUrl}"
  data-poll-ms="${input.pollIntervalMs}"
  data-locale="${LOCALES[language]}"
  data-stage="${view.stage}"
  data-seconds-left="${view.secondsLeft}"
  data-remaining="${view.remainingBaseUnits.toString()}"
  data-chain-id="${view.deposit.chainId}"
  data-chain-name="${view.network.name}"
  data-rpc-url="${view.network.publicRpcUrl ?? ''}"
  data-native-symbol="${view.network.nativeCurrencySymbol ?? 'POL'}"
  data-explorer-url="${view.network.explorerUrl}"
  data-token="${view.deposit.tokenAddress}"
  data-deposit="${view.deposit.depositAddress}"${
    input.gasless
      ? html`
  data-gasless-url="/pay/${view.paymentId}/gasless.json"
  data-authorization-url="/pay/${view.paymentId}/authorization"`
      : null
  }>
<header class="merchant">
  <p class="eyebrow">${m.paymentTo}</p>
  <h1>${view.merchantName}</h1>
  <p class="price"><span class="label">${m.price}</span> <strong>${price}</strong></p>
  ${rateLine}
</header>
<p class="visually-hidden" role="status" aria-live="polite" data-live></p>

<section class="stage" data-stage="pay" aria-labelledby="title-pay"${hiddenAttr(hidden('pay'))}>
  <div class="status-line">
    <span class="spinner" aria-hidden="true"></span>
    <h2 id="title-pay">${m.waitingTitle}</h2>
    <p class="countdown"><span>${m.timeLeft}</span> <time data-countdown datetime="${view.expiresAt.toISOString()}">${formatCountdown(view.secondsLeft)}</time></p>
  </div>
  <p class="muted">${m.waitingBody}</p>
  <p class="fee" role="note">${m.exchangeFee}</p>
  <div class="notice" data-partial${hiddenAttr(!partial)}>
    <p><strong>${m.partialTitle}</strong></p>
    <p>${format(m.partialBody, { received: usdc(detected, 'detected'), remaining: usdc(remaining, 'remaining') })}</p>
    <p data-partial-confirming${hiddenAttr(view.detectedBaseUnits === view.receivedBaseUnits)}>${m.partialConfirming}</p>
  </div>
  <dl class="facts">
    <div class="fact">
      <dt>${m.amountToSend}</dt>
      <dd class="with-action"><span class="amount"><span id="amount" data-field="remaining" data-value="${formatUsdc(view.remainingBaseUnits)}">${remaining}</span> USDC</span>
        <button type="button" class="copy" data-copy="amount" aria-label="${m.copyAmount}" data-copied="${m.copied}" hidden>${m.copy}</button></dd>
    </div>
    <div class="fact">
      <dt>${m.network}</dt>
      <dd>${networkValue}</dd>
    </div>
    <div class="fact">
      <dt>${m.depositAddress}</dt>
      <dd class="with-action"><code id="deposit-address" class="address">${view.deposit.depositAddress}</code>
        <button type="button" class="copy" data-copy="deposit-address" aria-label="${m.copyAddress}" data-copied="${m.copied}" hidden>${m.copy}</button></dd>
    </div>
    <div class="fact">
      <dt>${m.tokenContract}</dt>
      <dd><code class="address small" id="token-address">${view.deposit.tokenAddress}</code></dd>
    </div>
  </dl>
  <div class="qr">
    <p class="open-wallet"><a class="button secondary" data-payment-link href="${view.paymentLink}">${m.openInWallet}</a></p>
    <details class="qr-code" data-qr-details open>
      <summary>${m.showQr}</summary>
      <img data-qr src="${qrUrl}?amount=${view.remainingBaseUnits.toString()}" width="232" height="232"
        alt="${format(m.qrAlt, { amount: remaining, network: view.network.name, address: view.deposit.depositAddress })}">
      <p class="muted small">${m.scanHint}</p>
    </details>
    <details class="address-only">
      <summary>${m.addressOnly}</summary>
      <img src="${qrUrl}?kind=address" width="200" height="200" loading="lazy"
        alt="${format(m.qrAddressAlt, { address: view.deposit.depositAddress })}">
      <p><code class="address">${view.deposit.depositAddress}</code></p>
    </details>
  </div>
  <div class="warning" role="note">
    <p><strong>${format(m.warningTitle, { network: view.network.name })}</strong></p>
    <p>${format(m.warningBody, { amount: usdc(remaining, 'remaining'), network: view.network.name, chainId: view.deposit.chainId })}</p>
  </div>
  <div class="wallet" data-wallet hidden>
    <p class="divider"><span>${m.orWallet}</span></p>
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
      <p class="wallet-message error" data-wallet-message="wrong-chain" hidden>${format(m.walletWrongChain, { network: view.network.name, chainId: view.deposit.chainId })}</p>
      <p class="wallet-message error" data-wallet-message="insufficient" hidden>${format(
        m.walletInsufficient,
        {
          balance: html`<span data-field="wallet-balance"></span>`,
          amount: html`<span data-field="remaining">${remaining}</span>`,
          network: view.network.name,
        },
      )}</p>
      <p class="wallet-message ok" data-wallet-message="sent" hidden>${format(m.walletSent, { hash: html`<code class="hash" data-field="wallet-tx"></code>` })}</p>
      <p class="wallet-message error" data-wallet-message="error" hidden>${format(m.walletError, { message: html`<span data-field="wallet-error"></span>` })}</p>
      <p class="wallet-message" data-wallet-message="signing" hidden>${m.walletSigning}</p>
      <p class="wallet-message ok" data-wallet-message="signed" hidden>${m.walletSigned}</p>
      <p class="wallet-message error" data-wallet-message="refused" hidden><span data-field="wallet-refusal"></span></p>
    </div>
    <p class="pay-with-gas" data-pay-with-gas hidden><button type="button" class="link">${m.payWithGas}</button></p>
  </div>
  <p class="muted small">${format(m.expiresAt, { time: expiry })}</p>
  <noscript><p class="notice">${m.noScript}</p></noscript>
</section>

<section class="stage" data-stage="confirming" aria-labelledby="title-confirming"${hiddenAttr(hidden('confirming'))}>
  <div class="status-line">
    <span class="spinner" aria-hidden="true"></span>
    <h2 id="title-confirming">${m.confirmingTitle}</h2>
  </div>
  <p>${format(m.confirmingBody, { amount: usdc(detected, 'detected') })}</p>
  ${transfers}
  <noscript><p class="notice">${m.noScript}</p></noscript>
</section>

<section class="stage end" data-stage="paid" aria-labelledby="title-paid"${hiddenAttr(hidden('paid'))}>
  ${badge('done')}
  <h2 id="title-paid">${m.paidTitle}</h2>
  <p>${format(m.paidBody, { merchant: view.merchantName, amount: usdc(received, 'received') })}</p>
  <p class="notice" data-overpaid${hiddenAttr(view.overpaidBaseUnits === 0n)}>${format(m.overpaid, {
    sent: usdc(received, 'received'),
    extra: usdc(amount(view.overpaidBaseUnits), 'overpaid'),
  })}</p>
  <p class="muted" data-late${hiddenAttr(!view.late)}>${m.paidLate}</p>
  ${transfers}
  ${returnLink}
</section>

<section class="stage end" data-stage="expired" aria-labelledby="title-expired"${hiddenAttr(hidden('expired'))}>
  ${badge('clock')}
  <h2 id="title-expired">${m.expiredTitle}</h2>
  <p>${format(m.expiredBody, { time: expiry, merchant: view.merchantName })}</p>
  ${returnLink}
</section>

<section class="stage end" data-stage="failed" aria-labelledby="title-failed"${hiddenAttr(hidden('failed'))}>
  ${badge('warning')}
  <h2 id="title-failed">${m.failedTitle}</h2>
  <p>${format(m.failedBody, { received: usdc(received, 'received'), required: usdc(required, 'required') })}</p>
  <p>${format(m.failedHelp, { merchant: view.merchantName })}</p>
  ${transfers}
  ${returnLink}
</section>

<template data-transfer-template>${transferItem(null, language, m)}</template>
<p class="notice error" data-connection-lost hidden>${m.connectionLost}</p>
<footer>
  <p class="reference"><span>${m.reference}</span> <code>${view.paymentId}</code></p>
  <p class="muted small">${m.nonCustodial}</p>
  ${languageSwitcher(language)}
</footer>
</main>`;
  return layout({
    language,
    title: format(m.documentTitle, { merchant: view.merchantName }),
    assets: input.assets,
    body,
    script: input.assets.script,
  });
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

/**
 * Every transfer that counts, each with its explorer link: the script rebuilds the list from status.json with
 * clones of the same item (the <template> rendered below), so both agree.
 */
function transferList(transfers: readonly CheckoutTransfer[], language: Language, m: Messages): SafeHtml {
  return html`<div class="tx" data-tx${hiddenAttr(transfers.length === 0)}><p class="label">${m.transfers}</p>
    <ul data-transfers>${transfers.map((t) => transferItem(t, language, m))}</ul></div>`;
}

function transferItem(t: CheckoutTransfer | null, language: Language, m: Messages): SafeHtml {
  const amount = t ? formatUsdcAmount(formatUsdc(t.amountBaseUnits), language) : '';
  return html`<li><strong class="nowrap"><span data-t="amount">${amount}</span> USDC</strong> <span class="muted" data-t="pending"${hiddenAttr(t?.final !== false)}>(${m.transferConfirming})</span>
      <code class="hash" data-t="txid">${t?.txid ?? ''}</code>
      <a data-t="link" href="${t?.url ?? '#'}"${hiddenAttr(!t?.url)}>${m.viewOnExplorer}</a></li>`;
}

/** "4:05", "59:59", "1:00:00": what the script shows too, so the first paint and the first tick agree. */
function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}
