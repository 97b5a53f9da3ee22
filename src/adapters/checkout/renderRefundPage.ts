import { formatUsdc } from '../../domain/money.ts';
import type { RefundStatus } from '../../domain/refund.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import { formatUsdcAmount, LOCALES } from '../web/localeFormat.ts';
import type { RefundView } from '../web/refundView.ts';
import { MESSAGES } from './messages/index.ts';
import {
  badge,
  hiddenAttr,
  languageSwitcher,
  layout,
  messagePage,
  moment,
  type PageAssets,
} from './pageLayout.ts';
import { REFUND_MESSAGES } from './refundMessages/index.ts';

/**
 * What the claim page shows: `claim` (the address form), `progress` (address given, waiting for the merchant's
 * funding, then sending), and the end screens `refunded`, `canceled`, `expired`.
 */
export type RefundStage = 'claim' | 'progress' | 'refunded' | 'canceled' | 'expired';

function refundStage(status: RefundStatus): RefundStage {
  switch (status) {
    case 'awaiting_address':
      return 'claim';
    case 'awaiting_funds':
    case 'processing':
      return 'progress';
    default:
      return status;
  }
}

/**
 * The refund claim page, rendered on the server like the checkout: every stage is in the page, the current
 * one visible; the script (assets/refund.js) checks and posts the address, fills it from a browser wallet,
 * and follows the status to "refunded" — writing text with textContent only.
 */
export function renderRefundPage(input: {
  view: RefundView;
  language: Language;
  assets: PageAssets;
  pollIntervalMs: number;
}): string {
  const { view, language } = input;
  const m = REFUND_MESSAGES[language];
  const checkoutMessages = MESSAGES[language];
  const stage = refundStage(view.status);
  const hidden = (s: RefundStage) => stage !== s;
  const amount = html`<strong class="nowrap"><span data-field="amount">${formatUsdcAmount(
    formatUsdc(view.amountBaseUnits),
    language,
  )}</span> USDC</strong>`;
  const network = view.network.name;
  const merchant = view.merchantName;
  const base = `/refunds/${view.refundId}`;
  const step = (name: string, text: SafeHtml | string, done: boolean) =>
    html`<li data-step="${name}"${done ? html` data-done` : null}>${text}</li>`;

  const body = html`<main id="refund" class="card"
  data-status-url="${base}/status.json"
  data-claim-url="${base}/claim"
  data-check-url="${base}/check"
  data-poll-ms="${input.pollIntervalMs}"
  data-locale="${LOCALES[language]}"
  data-stage="${stage}"
  data-chain-id="${view.network.chainId}">
<header class="merchant">
  <p class="eyebrow">${m.refundFrom}</p>
  <h1>${merchant}</h1>
  <p class="price"><span class="label">${m.amount}</span> ${amount}</p>
</header>
<p class="visually-hidden" role="status" aria-live="polite" data-live></p>
<dl class="facts">
  <div class="fact"><dt>${checkoutMessages.network}</dt><dd>${format(checkoutMessages.networkValue, {
    network,
    chainId: view.network.chainId,
  })}</dd></div>
  <div class="fact"><dt>${checkoutMessages.tokenContract}</dt><dd><code class="address small">${view.tokenAddress}</code></dd></div>
</dl>

<section class="stage" data-stage="claim" aria-labelledby="title-claim"${hiddenAttr(hidden('claim'))}>
  <h2 id="title-claim">${m.claimTitle}</h2>
  <p>${format(m.claimBody, { network, merchant })}</p>
  <noscript><p class="notice">${m.noScript}</p></noscript>
  <form class="claim" data-claim-form hidden novalidate>
    <label for="refund-address" class="label">${format(m.addressLabel, { network })}</label>
    <input id="refund-address" name="address" class="address-input" type="text" inputmode="text"
      autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="64" placeholder="0x…"
      aria-describedby="address-hint address-problem" required>
    <p id="address-hint" class="muted small">${format(m.addressHint, { network })}</p>
    <p id="address-problem" class="wallet-message error" data-problem role="alert" hidden></p>
    <p class="notice warning" data-contract-warning hidden>${m.contractWarning}</p>
    <button type="button" class="button" data-fill-wallet hidden>${m.fillFromWallet}</button>
    <button type="submit" class="button primary" data-confirm data-contract-label="${m.confirmContract}">${m.confirm}</button>
    <p class="muted small">${format(m.claimBefore, { time: moment(view.claimExpiresAt, language, 'date') })}</p>
  </form>
</section>

<section class="stage" data-stage="progress" aria-labelledby="title-progress"${hiddenAttr(hidden('progress'))}>
  <div class="status-line">
    <span class="spinner" aria-hidden="true"></span>
    <h2 id="title-progress">${m.progressTitle}</h2>
  </div>
  <p>${m.addressGiven} <code class="address" data-field="address">${view.address ?? ''}</code></p>
  <ol class="steps">
    ${step('address', m.stepAddress, true)}
    ${step('funding', format(m.stepFunding, { merchant }), view.status === 'processing')}
    ${step('sending', m.stepSending, false)}
  </ol>
</section>

<section class="stage end" data-stage="refunded" aria-labelledby="title-refunded"${hiddenAttr(hidden('refunded'))}>
  ${badge('done')}
  <h2 id="title-refunded">${m.refundedTitle}</h2>
  <p>${format(m.refundedBody, {
    amount: html`<strong class="nowrap"><span data-field="sent">${formatUsdcAmount(
      formatUsdc(view.sentBaseUnits),
      language,
    )}</span> USDC</strong>`,
  })}</p>
  <p><code class="address" data-field="address">${view.address ?? ''}</code></p>
  <div class="tx"><p class="label">${checkoutMessages.transaction}</p>
    <code class="hash" data-field="txid">${view.txid ?? ''}</code>
    <a data-tx-link href="${view.txUrl ?? '#'}"${hiddenAttr(!view.txUrl)}>${checkoutMessages.viewOnExplorer}</a></div>
</section>

<section class="stage end" data-stage="canceled" aria-labelledby="title-canceled"${hiddenAttr(hidden('canceled'))}>
  ${badge('closed')}
  <h2 id="title-canceled">${m.canceledTitle}</h2>
  <p>${format(m.canceledBody, { merchant })}</p>
</section>

<section class="stage end" data-stage="expired" aria-labelledby="title-expired"${hiddenAttr(hidden('expired'))}>
  ${badge('clock')}
  <h2 id="title-expired">${m.expiredTitle}</h2>
  <p>${format(m.expiredBody, { merchant, time: moment(view.claimExpiresAt, language, 'date') })}</p>
</section>

${clientMessages(language)}
<p class="notice error" data-connection-lost hidden>${checkoutMessages.connectionLost}</p>
<footer>
  <p class="reference"><span>${m.reference}</span> <code>${view.refundId}</code></p>
  <p class="muted small">${m.nonCustodial}</p>
  ${languageSwitcher(language)}
</footer>
</main>`;
  return layout({
    language,
    title: format(m.documentTitle, { merchant }),
    assets: input.assets,
    body,
    script: input.assets.refundScript,
  });
}

/**
 * The sentences the script may show, in the page's language: rendered (and escaped) here, so the script only
 * ever copies text, never builds it.
 */
function clientMessages(language: Language): SafeHtml {
  const m = REFUND_MESSAGES[language];
  const entries: [string, string][] = [
    ['walletWorking', m.walletWorking],
    ['walletRejected', m.walletRejected],
    ['walletError', m.walletError],
    ['sending', m.sending],
    ['alreadyClaimed', m.alreadyClaimed],
    ['tryAgain', m.tryAgain],
    ...Object.entries(m.problems).map(([problem, text]): [string, string] => [`problem-${problem}`, text]),
  ];
  return html`<div hidden data-messages>${entries.map(([key, text]) => html`<span data-message="${key}">${text}</span>`)}</div>`;
}

/** The 404 page of a refund link: the same for an unknown and a malformed id. */
export function renderRefundNotFoundPage(language: Language, assets: PageAssets): string {
  const m = REFUND_MESSAGES[language];
  return messagePage(language, assets, m.notFoundTitle, m.notFoundBody);
}
