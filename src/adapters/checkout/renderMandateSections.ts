import type { Mandate } from '../../app/subscriptions/mandatePorts.ts';
import { allowanceFor, OPEN_ENDED_ALLOWANCE_PERIODS } from '../../app/subscriptions/mandates.ts';
import type { ShownSubscription } from '../../app/subscriptions/subscriptions.ts';
import { USDC } from '../../domain/currencies.ts';
import { formatMoney, type Money } from '../../domain/money.ts';
import { periodEnd } from '../../domain/subscriptionPeriods.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { cancelCallData } from '../chain/subscriptionCharger.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import type { Language } from '../web/language.ts';
import { formatPriceAmount } from '../web/localeFormat.ts';
import { moment } from './pageLayout.ts';
import type { SubscriptionMessages } from './subscriptionMessages/index.ts';

/** Where a mode's subscriptions are charged by pull (decision 0061): shown as the wallet's way when set. */
export interface PullOffer {
  readonly chainId: number;
  readonly chainName: string;
}

function money(value: Money, language: Language): string {
  return `${formatPriceAmount(formatMoney(value), language)} ${value.currency.code}`;
}

/**
 * The allowance the page's permit grants the charger, in USDC: the cap (a USDC plan's price, a fiat plan's
 * proposed cap) times the number of periods, or 12 periods' when the plan runs until canceled (the portal offers
 * 12 more once less than one is left).
 */
export function permitTotal(plan: SubscriptionPlan, cap: bigint = plan.price.minorUnits): Money {
  return { currency: USDC, minorUnits: allowanceFor(cap, plan.periods) };
}

/** The sentences the script shows, rendered (and escaped) here, copied with textContent there. */
function scriptMessages(messages: Record<string, string>): SafeHtml {
  return html`<div hidden>${Object.entries(messages).map(
    ([key, text]) => html`<span data-message="${key}">${text}</span>`,
  )}</div>`;
}

/**
 * The subscribe page's wallet way (pull renewal): the terms in words, the allowance, the e-mail (still asked),
 * and a button the script (assets/subscription.js) drives: subscribe, sign the terms and the permit, post the
 * mandate, go to the portal. Without a wallet (or without script) it says so, and the e-mail way stays below.
 */
export function walletWay(
  input: { plan: SubscriptionPlan; language: Language; merchantName: string; pull: PullOffer; cap: bigint },
  m: SubscriptionMessages,
): SafeHtml {
  const { plan, language, pull, cap } = input;
  const w = m.wallet;
  // A fiat plan's cap is the page's proposal (today's price and a margin), in USDC: the terms say it as it is.
  const fiat = plan.price.currency.code !== 'USDC';
  const allowance = plan.periods === null ? w.allowanceOpenEnded : fiat ? w.allowanceFiat : w.allowance;
  const words = { cap: money({ currency: USDC, minorUnits: cap }, language), merchant: input.merchantName };
  return html`<section class="subscribe-way" id="wallet-way" aria-labelledby="wallet-way-title" data-wallet-url="/subscribe/${plan.id}/wallet?lang=${language}" data-chain-id="${String(pull.chainId)}" data-chain-name="${pull.chainName}" data-cap="${cap.toString()}" data-allowance="${permitTotal(plan, cap).minorUnits.toString()}">
  <h2 id="wallet-way-title">${w.title}</h2>
  <p>${fiat ? fill(w.explainFiat, { ...words, currency: plan.price.currency.code }) : fill(w.explain, words)}</p>
  <p class="muted small">${fill(allowance, {
    total: money(permitTotal(plan, cap), language),
    periods: OPEN_ENDED_ALLOWANCE_PERIODS,
  })}</p>
  <div class="choice" data-wallet-ready hidden>
    <label for="wallet-email">${m.email}</label>
    <input class="amount-input" id="wallet-email" type="email" inputmode="email" autocomplete="email" maxlength="254" required>
    <button type="button" class="button primary" data-wallet-subscribe>${w.subscribe}</button>
  </div>
  <p class="muted" data-no-wallet>${w.noWallet}</p>
  <p class="notice" role="status" data-live hidden></p>
  ${scriptMessages({
    working: w.working,
    rejected: w.rejected,
    wrongChain: fill(w.wrongChain, { chain: pull.chainName }),
    failed: w.failed,
  })}
</section>`;
}

/**
 * The portal's mandate section, when the subscription has one: the cap per period, how often, the end, the
 * wallet; "Switch to e-mail payments" (a form: the server cancels the mandate) while it is active, and "Revoke on
 * chain" (the script asks the wallet to send the charger's `cancel(terms)`).
 */
export function mandateSection(
  input: { shown: ShownSubscription; mandate: Mandate; token: string; language: Language },
  m: SubscriptionMessages,
): SafeHtml {
  const { shown, mandate, language } = input;
  const { plan, subscription } = shown;
  const w = m.wallet;
  // The cap is in USDC base units whatever the plan's currency (a fiat plan's is the customer's ceiling).
  const capShown: Money = { currency: USDC, minorUnits: mandate.terms.cap };
  const end =
    plan.periods === null
      ? w.endNever
      : moment(periodEnd(subscription.anchor, plan.interval, plan.periods), language, 'date');
  const active = mandate.status === 'active';
  // Canceled by the customer's own transaction (read once final): nothing is left to revoke.
  const onChain = mandate.canceledOnChain ?? null;
  return html`<section class="subscribe-way" id="mandate" aria-labelledby="mandate-title" data-chain-id="${String(mandate.chainId)}" data-charger="${mandate.charger}" data-customer="${mandate.terms.customer}" data-cancel-data="${cancelCallData(mandate)}">
  <h2 id="mandate-title">${w.portalTitle}</h2>
  ${active ? null : html`<p class="notice" role="status">${w.stopped}</p>`}
  ${onChain ? html`<p>${format(w.canceledOnChain, { date: moment(onChain.at, language, 'date') })} <code class="hash">${onChain.txHash}</code></p>` : null}
  <dl class="facts">
    <div class="fact"><dt>${w.cap}</dt><dd>${money(capShown, language)}</dd></div>
    <div class="fact"><dt>${w.period}</dt><dd>${fill(m.every[plan.interval.unit], { count: plan.interval.count })}</dd></div>
    <div class="fact"><dt>${w.end}</dt><dd>${end}</dd></div>
    <div class="fact"><dt>${w.wallet}</dt><dd><code>${mandate.terms.customer}</code></dd></div>
  </dl>
  ${
    active
      ? html`<p>${w.switchExplain}</p>
  <form method="post" action="/subscriptions/${input.token}/mandate/cancel?lang=${language}">
    <button type="submit" class="button">${w.switch}</button>
  </form>`
      : null
  }
  ${
    onChain
      ? null
      : html`<p class="muted small">${w.revokeExplain}</p>
  <button type="button" class="button" data-revoke hidden>${w.revoke}</button>`
  }
  <p class="notice" role="status" data-live hidden></p>
  ${scriptMessages({ working: w.working, rejected: w.rejected, failed: w.failed, revoked: w.revoked })}
</section>`;
}
