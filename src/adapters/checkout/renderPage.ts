import { formatUsdc } from '../../domain/money.ts';
import type { CheckoutStage, CheckoutView } from './checkoutView.ts';
import { format, html, type SafeHtml } from './html.ts';
import { LANGUAGES, type Language } from './language.ts';
import { DATE_LOCALES, LANGUAGE_NAMES, MESSAGES, type Messages } from './messages.ts';

/**
 * The checkout's HTML, rendered on the server so that the amount, the address and the network are readable
 * without JavaScript. Every stage of the payment is in the page; only the current one is visible, and the
 * script (assets/checkout.js) switches between them and fills in the numbers as the status changes — with
 * textContent only, so the text it inserts is never markup.
 */
export interface PageAssets {
  readonly stylesheet: string;
  readonly script: string;
}

export interface CheckoutPageInput {
  readonly view: CheckoutView;
  readonly language: Language;
  readonly assets: PageAssets;
  readonly pollIntervalMs: number;
}

export function renderCheckoutPage(input: CheckoutPageInput): string {
  const { view, language } = input;
  const m = MESSAGES[language];
  const usdc = (amount: string, field: string) =>
    html`<strong class="nowrap"><span data-field="${field}">${amount}</span> USDC</strong>`;
  const remaining = formatUsdc(view.remainingBaseUnits);
  const required = formatUsdc(view.requiredBaseUnits);
  const detected = formatUsdc(view.detectedBaseUnits);
  const received = formatUsdc(view.receivedBaseUnits);
  const expiry = formatExpiry(view.expiresAt, language);
  const networkValue = format(m.networkValue, { network: view.network.name, chainId: view.deposit.chainId });
  const qrUrl = `/pay/${view.paymentId}/qr.svg`;
  const returnLink = view.returnUrl
    ? html`<p><a class="button primary" href="${view.returnUrl}">${format(m.returnToMerchant, { merchant: view.merchantName })}</a></p>`
    : null;
  const hidden = (stage: CheckoutStage) => view.stage !== stage;
  const partial = view.stage === 'pay' && view.detectedBaseUnits > 0n;

  const body = html`<main id="checkout" class="card"
  data-status-url="/pay/${view.paymentId}/status.json"
  data-qr-url="${qrUrl}"
  data-poll-ms="${input.pollIntervalMs}"
  data-stage="${view.stage}"
  data-seconds-left="${view.secondsLeft}"
  data-remaining="${view.remainingBaseUnits.toString()}"
  data-chain-id="${view.deposit.chainId}"
  data-chain-name="${view.network.name}"
  data-rpc-url="${view.network.publicRpcUrl ?? ''}"
  data-native-symbol="${view.network.nativeCurrencySymbol ?? 'POL'}"
  data-explorer-url="${view.network.explorerUrl}"
  data-token="${view.deposit.tokenAddress}"
  data-deposit="${view.deposit.depositAddress}">
<header class="merchant">
  <p class="eyebrow">${m.paymentTo}</p>
  <h1>${view.merchantName}</h1>
  <p class="price"><span class="label">${m.price}</span> <strong>${view.priceAmount} ${view.priceCurrency}</strong></p>
</header>
<p class="visually-hidden" role="status" aria-live="polite" data-live></p>

<section class="stage" data-stage="pay" aria-labelledby="title-pay"${hiddenAttr(hidden('pay'))}>
  <div class="status-line">
    <span class="spinner" aria-hidden="true"></span>
    <h2 id="title-pay">${m.waitingTitle}</h2>
    <p class="countdown"><span>${m.timeLeft}</span> <time data-countdown datetime="${view.expiresAt.toISOString()}">${formatCountdown(view.secondsLeft)}</time></p>
  </div>
  <p class="muted">${m.waitingBody}</p>
  <div class="notice" data-partial${hiddenAttr(!partial)}>
    <p><strong>${m.partialTitle}</strong></p>
    <p>${format(m.partialBody, { received: usdc(detected, 'detected'), remaining: usdc(remaining, 'remaining') })}</p>
    <p data-partial-confirming${hiddenAttr(view.detectedBaseUnits === view.receivedBaseUnits)}>${m.partialConfirming}</p>
  </div>
  <dl class="facts">
    <div class="fact">
      <dt>${m.amountToSend}</dt>
      <dd class="with-action"><span class="amount"><span id="amount" data-field="remaining">${remaining}</span> USDC</span>
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
    <img data-qr src="${qrUrl}?amount=${view.remainingBaseUnits.toString()}" width="232" height="232"
      alt="${format(m.qrAlt, { amount: remaining, network: view.network.name, address: view.deposit.depositAddress })}">
    <p class="muted small">${m.scanHint}</p>
    <p><a class="button secondary" data-payment-link href="${view.paymentLink}">${m.openInWallet}</a></p>
    <details>
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
    <div class="wallet-messages" aria-live="assertive">
      <p class="wallet-message" data-wallet-message="working" hidden>${m.walletWorking}</p>
      <p class="wallet-message error" data-wallet-message="none" hidden>${m.walletNone}</p>
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
    </div>
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
  ${transactionLine(view, m)}
  <noscript><p class="notice">${m.noScript}</p></noscript>
</section>

<section class="stage end" data-stage="paid" aria-labelledby="title-paid"${hiddenAttr(hidden('paid'))}>
  <svg class="badge ok" viewBox="0 0 48 48" width="64" height="64" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22"/><path d="M14 25l7 7 13-15"/></svg>
  <h2 id="title-paid">${m.paidTitle}</h2>
  <p>${format(m.paidBody, { merchant: view.merchantName, amount: usdc(received, 'received') })}</p>
  <p class="muted" data-late${hiddenAttr(!view.late)}>${m.paidLate}</p>
  ${transactionLine(view, m)}
  ${returnLink}
</section>

<section class="stage end" data-stage="expired" aria-labelledby="title-expired"${hiddenAttr(hidden('expired'))}>
  <svg class="badge muted" viewBox="0 0 48 48" width="64" height="64" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22"/><path d="M24 12v13l8 5"/></svg>
  <h2 id="title-expired">${m.expiredTitle}</h2>
  <p>${format(m.expiredBody, { time: expiry, merchant: view.merchantName })}</p>
  ${returnLink}
</section>

<section class="stage end" data-stage="failed" aria-labelledby="title-failed"${hiddenAttr(hidden('failed'))}>
  <svg class="badge warn" viewBox="0 0 48 48" width="64" height="64" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22"/><path d="M24 13v14M24 33v2"/></svg>
  <h2 id="title-failed">${m.failedTitle}</h2>
  <p>${format(m.failedBody, { received: usdc(received, 'received'), required: usdc(required, 'required') })}</p>
  <p>${format(m.failedHelp, { merchant: view.merchantName })}</p>
  ${transactionLine(view, m)}
  ${returnLink}
</section>

<p class="notice error" data-connection-lost hidden>${m.connectionLost}</p>
<footer>
  <p class="reference"><span>${m.reference}</span> <code>${view.paymentId}</code></p>
  <p class="muted small">${m.nonCustodial}</p>
  ${languageSwitcher(language, m)}
</footer>
</main>`;
  return layout({
    language,
    title: format(m.documentTitle, { merchant: view.merchantName }),
    assets: input.assets,
    body,
    script: true,
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

function messagePage(language: Language, assets: PageAssets, title: string, text: string): string {
  const m = MESSAGES[language];
  const body = html`<main class="card">
<section class="stage end" aria-labelledby="title">
  <svg class="badge muted" viewBox="0 0 48 48" width="64" height="64" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22"/><path d="M17 17l14 14M31 17L17 31"/></svg>
  <h1 id="title">${title}</h1>
  <p>${text}</p>
</section>
<footer>${languageSwitcher(language, m)}</footer>
</main>`;
  return layout({ language, title, assets, body, script: false });
}

function layout(input: {
  language: Language;
  title: SafeHtml | string;
  assets: PageAssets;
  body: SafeHtml;
  script: boolean;
}): string {
  const script = input.script ? html`<script src="${input.assets.script}" defer></script>` : null;
  return html`<!doctype html>
<html lang="${input.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<title>${input.title}</title>
<link rel="stylesheet" href="${input.assets.stylesheet}">
${script}
</head>
<body>
${input.body}
</body>
</html>
`.toString();
}

function transactionLine(view: CheckoutView, m: Messages): SafeHtml {
  return html`<p class="tx" data-tx${hiddenAttr(view.txid === null)}><span class="label">${m.transaction}</span>
    <code class="hash" data-field="txid">${view.txid ?? ''}</code>
    <a data-tx-link href="${view.txUrl ?? '#'}"${hiddenAttr(view.txUrl === null)}>${m.viewOnExplorer}</a></p>`;
}

function languageSwitcher(current: Language, m: Messages): SafeHtml {
  const links = LANGUAGES.map((language) =>
    language === current
      ? html`<li><span aria-current="true">${LANGUAGE_NAMES[language]}</span></li>`
      : html`<li><a href="?lang=${language}" hreflang="${language}" lang="${language}">${LANGUAGE_NAMES[language]}</a></li>`,
  );
  return html`<nav class="languages" aria-label="${m.language}"><ul>${links}</ul></nav>`;
}

function hiddenAttr(isHidden: boolean): SafeHtml | null {
  return isHidden ? html` hidden` : null;
}

/** "21 Nov 2026, 12:00 UTC" in the page's language; always UTC, so it never depends on the server's zone. */
export function formatExpiry(date: Date, language: Language): string {
  const text = new Intl.DateTimeFormat(DATE_LOCALES[language], {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(date);
  return `${text} UTC`;
}

/** "4:05", "59:59", "1:00:00": what the script shows too, so the first paint and the first tick agree. */
export function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}
