import { formatUsdc } from '../../domain/money.ts';
import type { RefundStatus } from '../../domain/refund.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import { formatUsdcAmount, LOCALES } from '../web/localeFormat.ts';
import type { RefundView } from '../web/refundView.ts';
import { MESSAGES, type Messages } from './messages/index.ts';
import { hiddenAttr, messagePage, moment, type PageAssets } from './pageLayout.ts';
import { REFUND_MESSAGES, type RefundMessages } from './refundMessages/index.ts';
import { endStage, scriptedPage, stage, stageTitle, usdcField, waitingStage } from './scriptedPage.ts';

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
  const base = `/refunds/${view.refundId}`;
  const stage = refundStage(view.status);
  const page = { view, language, stage, m, checkout: MESSAGES[language] };
  return scriptedPage({
    language,
    id: 'refund',
    documentTitle: m.documentTitle,
    assets: input.assets,
    script: input.assets.refundScript,
    data: [
      ['status-url', `${base}/status.json`],
      ['claim-url', `${base}/claim`],
      ['check-url', `${base}/check`],
      ['poll-ms', input.pollIntervalMs],
      ['locale', LOCALES[language]],
      ['stage', stage],
      ['chain-id', view.network.chainId],
    ],
    header: {
      eyebrow: m.refundFrom,
      merchant: view.merchantName,
      priceLabel: m.amount,
      price: usdc(view.amountBaseUnits, 'amount', language),
    },
    facts: networkFacts(page),
    stages: [
      claimStage(page),
      progressStage(page),
      refundedStage(page),
      canceledStage(page),
      expiredStage(page),
    ],
    scripted: clientMessages(language),
    connectionLost: page.checkout.connectionLost,
    reference: { label: m.reference, id: view.refundId },
    nonCustodial: m.nonCustodial,
  });
}

/** What the stages of the claim page read: the refund, its stage, and the words of both surfaces. */
interface RefundPage {
  readonly view: RefundView;
  readonly language: Language;
  readonly stage: RefundStage;
  readonly m: RefundMessages;
  /** The checkout's words, for what both pages say alike (network, token, transaction). */
  readonly checkout: Messages;
}

/** An amount of USDC the script keeps up to date, as the page's language writes it. */
function usdc(baseUnits: bigint, field: string, language: Language): SafeHtml {
  return usdcField(formatUsdcAmount(formatUsdc(baseUnits), language), field);
}

/** The network and the token, whatever the stage: the customer's address must be on that network. */
function networkFacts({ view, checkout }: RefundPage): SafeHtml {
  return html`<dl class="facts">
  <div class="fact"><dt>${checkout.network}</dt><dd>${format(checkout.networkValue, {
    network: view.network.name,
    chainId: view.network.chainId,
  })}</dd></div>
  <div class="fact"><dt>${checkout.tokenContract}</dt><dd><code class="address small">${view.tokenAddress}</code></dd></div>
</dl>`;
}

/** The address form: the script shows it, checks the address as it is typed, and may fill it from a wallet. */
function claimStage({ view, language, stage: current, m }: RefundPage): SafeHtml {
  const network = view.network.name;
  return stage('claim', current, 'step', [
    stageTitle('claim', m.claimTitle),
    html`<p>${format(m.claimBody, { network, merchant: view.merchantName })}</p>`,
    html`<noscript><p class="notice">${m.noScript}</p></noscript>`,
    html`<form class="claim" data-claim-form hidden novalidate>
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
  </form>`,
  ]);
}

/** Address given: the steps to the refund, done as the merchant funds it and the money goes out. */
function progressStage({ view, stage, m }: RefundPage): SafeHtml {
  const step = (name: string, text: SafeHtml | string, done: boolean) =>
    html`<li data-step="${name}"${done ? html` data-done` : null}>${text}</li>`;
  return waitingStage('progress', stage, m.progressTitle, [
    html`<p>${m.addressGiven} <code class="address" data-field="address">${view.address ?? ''}</code></p>`,
    html`<ol class="steps">
    ${step('address', m.stepAddress, true)}
    ${step('funding', format(m.stepFunding, { merchant: view.merchantName }), view.status === 'processing')}
    ${step('sending', m.stepSending, false)}
  </ol>`,
  ]);
}

function refundedStage({ view, language, stage, m, checkout }: RefundPage): SafeHtml {
  return endStage('refunded', stage, 'done', m.refundedTitle, [
    html`<p>${format(m.refundedBody, { amount: usdc(view.sentBaseUnits, 'sent', language) })}</p>`,
    html`<p><code class="address" data-field="address">${view.address ?? ''}</code></p>`,
    html`<div class="tx"><p class="label">${checkout.transaction}</p>
    <code class="hash" data-field="txid">${view.txid ?? ''}</code>
    <a data-tx-link href="${view.txUrl ?? '#'}"${hiddenAttr(!view.txUrl)}>${checkout.viewOnExplorer}</a></div>`,
  ]);
}

function canceledStage({ view, stage, m }: RefundPage): SafeHtml {
  return endStage('canceled', stage, 'closed', m.canceledTitle, [
    html`<p>${format(m.canceledBody, { merchant: view.merchantName })}</p>`,
  ]);
}

function expiredStage({ view, language, stage, m }: RefundPage): SafeHtml {
  const time = moment(view.claimExpiresAt, language, 'date');
  return endStage('expired', stage, 'clock', m.expiredTitle, [
    html`<p>${format(m.expiredBody, { merchant: view.merchantName, time })}</p>`,
  ]);
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
