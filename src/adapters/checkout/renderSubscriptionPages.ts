import type { Mandate } from '../../app/subscriptions/mandatePorts.ts';
import type { PeriodPayment } from '../../app/subscriptions/ports.ts';
import type { ShownSubscription } from '../../app/subscriptions/subscriptions.ts';
import { formatMoney, type Money } from '../../domain/money.ts';
import { cancellationMoment, graceEnd } from '../../domain/subscription.ts';
import { periodEnd, periodStart } from '../../domain/subscriptionPeriods.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import type { Language } from '../web/language.ts';
import { formatPriceAmount } from '../web/localeFormat.ts';
import { languageSwitcher, layout, messagePage, moment, type PageAssets } from './pageLayout.ts';
import { allowanceSection } from './renderAllowanceSection.ts';
import { mandateSection, type PullOffer, walletWay } from './renderMandateSections.ts';
import { SUBSCRIPTION_MESSAGES, type SubscriptionMessages } from './subscriptionMessages/index.ts';

/** What the subscribe page says was wrong with a post, in the customer's words. */
export type SubscribeProblem = 'email' | 'form' | 'foreign' | 'rate' | 'unavailable';

interface PageFrame {
  readonly merchantName: string;
  /** The merchant's logo (brandRoutes.ts); null: none. */
  readonly logo: SafeHtml | null;
  readonly language: Language;
  readonly assets: PageAssets;
}

function money(value: Money, language: Language): string {
  return `${formatPriceAmount(formatMoney(value), language)} ${value.currency.code}`;
}

/** "9.90 EUR per month", "25.00 USDC every 3 months". */
export function priceText(plan: SubscriptionPlan, language: Language): string {
  const m = SUBSCRIPTION_MESSAGES[language];
  const every = fill(m.every[plan.interval.unit], { count: plan.interval.count });
  return `${money(plan.price, language)} ${every}`;
}

/** The plan's terms in plain words: trial, how each period is paid, grace, length, rate, cancellation. */
function terms(plan: SubscriptionPlan, language: Language, now: Date, m: SubscriptionMessages): SafeHtml {
  const firstDue = new Date(now.getTime() + plan.trialDays * 86_400_000);
  const lines: (SafeHtml | string)[] = [
    plan.trialDays > 0
      ? format(m.trial, { days: plan.trialDays, date: moment(firstDue, language, 'date') })
      : m.noTrial,
    m.pushTerms,
    plan.graceDays > 0 ? format(m.grace, { days: plan.graceDays }) : m.noGrace,
    plan.periods === null ? m.untilCanceled : format(m.periods, { count: plan.periods }),
    ...(plan.price.currency.code === 'USDC'
      ? []
      : [format(m.fiatRate, { currency: plan.price.currency.code })]),
    m.cancelAnyTime,
  ];
  return html`<section aria-labelledby="terms-title">
  <h2 id="terms-title">${m.termsTitle}</h2>
  <ul class="terms">${lines.map((line) => html`<li>${line}</li>`)}</ul>
</section>`;
}

function header(frame: PageFrame, title: string, priceLine: string, m: SubscriptionMessages): SafeHtml {
  return html`<header class="merchant">
  ${frame.logo}
  <p class="eyebrow">${format(m.eyebrow, { merchant: frame.merchantName })}</p>
  <h1>${title}</h1>
  <p class="price"><span class="label">${m.price}</span> <strong>${priceLine}</strong></p>
</header>`;
}

/**
 * A plan's public subscribe page (`/subscribe/<plan id>`): the plan, its price and terms in plain words, and the
 * ways to subscribe. Today one way, by e-mail (push renewal): a form posted to the same URL, no script.
 */
export function renderSubscribePage(
  input: PageFrame & {
    readonly plan: SubscriptionPlan;
    readonly now: Date;
    /**
     * The mode's pull renewal with the cap the wallet is asked to sign (a USDC plan's price, a fiat plan's price
     * at today's rate and a margin); null: the e-mail way alone.
     */
    readonly pull?: (PullOffer & { readonly cap: bigint }) | null | undefined;
    readonly refused?:
      | { readonly problem: SubscribeProblem; readonly email?: string | undefined }
      | undefined;
  },
): string {
  const { plan, language } = input;
  const m = SUBSCRIPTION_MESSAGES[language];
  const wallet = input.pull ?? null;
  const body = html`<main id="subscribe" class="card">
${header(input, plan.name, priceText(plan, language), m)}
${plan.description === null ? null : html`<p class="description">${plan.description}</p>`}
${terms(plan, language, input.now, m)}
${problemBox(input.refused?.problem, input.merchantName, m)}
<div class="subscribe-ways">
  ${wallet ? walletWay({ ...input, pull: wallet, cap: wallet.cap }, m) : null}
  ${emailWay(input, m)}
</div>
<p class="muted small">${format(m.nonCustodial, { merchant: input.merchantName })}</p>
<footer>${languageSwitcher(language)}</footer>
</main>`;
  // The ways to subscribe, each a section of .subscribe-ways: the wallet's (pull renewal, with the page's
  // script) ahead of the e-mail form, which works without any script.
  return layout({
    language,
    title: fill(m.subscribeTitle, { plan: plan.name, merchant: input.merchantName }),
    assets: input.assets,
    body,
    script: wallet ? input.assets.subscriptionScript : null,
  });
}

function problemBox(
  problem: SubscribeProblem | undefined,
  merchant: string,
  m: SubscriptionMessages,
): SafeHtml | null {
  if (problem === undefined) return null;
  const text =
    problem === 'email'
      ? m.emailError
      : problem === 'foreign'
        ? m.foreignForm
        : problem === 'rate'
          ? m.rateLimited
          : problem === 'unavailable'
            ? fill(m.unavailable, { merchant })
            : m.formError;
  return html`<p class="notice error" role="alert" id="subscribe-error">${text}</p>`;
}

/** Push renewal: the customer's address, where each period's link and the portal's link are sent. */
function emailWay(
  input: {
    plan: SubscriptionPlan;
    language: Language;
    refused?: { problem: string; email?: string | undefined } | undefined;
  },
  m: SubscriptionMessages,
): SafeHtml {
  const invalid = input.refused?.problem === 'email';
  return html`<section class="subscribe-way" aria-labelledby="email-way">
  <h2 id="email-way">${m.emailTitle}</h2>
  <form class="choice" method="post" action="/subscribe/${input.plan.id}?lang=${input.language}">
    <label for="email">${m.email}</label>
    <input class="amount-input" id="email" name="email" type="email" inputmode="email" autocomplete="email" maxlength="254" required aria-describedby="email-use${invalid ? ' subscribe-error' : ''}"${invalid ? html` aria-invalid="true"` : null} value="${input.refused?.email ?? ''}">
    <p class="muted small" id="email-use">${m.emailUse}</p>
    <button type="submit" class="button primary">${m.subscribe}</button>
  </form>
</section>`;
}

export function renderPlanNotFoundPage(language: Language, assets: PageAssets): string {
  const m = SUBSCRIPTION_MESSAGES[language];
  return messagePage(language, assets, m.planNotFoundTitle, m.planNotFoundBody);
}

export function renderPlanArchivedPage(language: Language, assets: PageAssets, merchant: string): string {
  const m = SUBSCRIPTION_MESSAGES[language];
  return messagePage(language, assets, m.archivedTitle, format(m.archivedBody, { merchant }));
}

export function renderPortalNotFoundPage(language: Language, assets: PageAssets): string {
  const m = SUBSCRIPTION_MESSAGES[language];
  return messagePage(language, assets, m.portalNotFoundTitle, m.portalNotFoundBody);
}

/** What the portal says above the status: a change just made, or why a cancellation was refused. */
export type PortalNotice = 'canceled' | 'subscribed' | 'switched' | 'foreign' | 'rate';

/** Where a period's payment is seen: its checkout page, or its receipt once paid (when one can be shown). */
export interface PaymentLinks {
  readonly receiptUrl: (paymentId: string) => string | undefined;
}

/**
 * The customer portal (`/subscriptions/<token>`): the subscription's status, its next payment, its periods'
 * payments with a link to pay or to the receipt, and "Cancel" (at the end of the period in force).
 */
export function renderPortalPage(
  input: PageFrame & {
    readonly shown: ShownSubscription;
    readonly token: string;
    readonly now: Date;
    readonly links: PaymentLinks;
    readonly notice?: PortalNotice | undefined;
    /** The subscription's mandate (pull renewal); null: none. */
    readonly mandate?: Mandate | null | undefined;
    /** What the charger may still take from the mandate's wallet, read from the chain; undefined: not known. */
    readonly allowanceLeft?: bigint | undefined;
  },
): string {
  const { shown, language } = input;
  const m = SUBSCRIPTION_MESSAGES[language];
  const { plan } = shown;
  const body = html`<main id="portal" class="card">
${header(input, plan.name, priceText(plan, language), m)}
${noticeOf(input, m)}
<p class="status-line"><strong>${statusText(shown, language, m)}</strong></p>
${facts(input, m)}
${paymentsTable(shown, language, input.links, m)}
${input.mandate ? mandateSection({ ...input, mandate: input.mandate }, m) : null}
${input.mandate && input.allowanceLeft !== undefined ? allowanceSection({ ...input, mandate: input.mandate, left: input.allowanceLeft }, m) : null}
${cancelSection(input, m)}
<p class="muted small">${format(m.nonCustodial, { merchant: input.merchantName })}</p>
<footer>${languageSwitcher(language)}</footer>
</main>`;
  // The wallet's mandate is a section of its own after the payments, with the script for "Revoke on chain".
  return layout({
    language,
    title: fill(m.portalTitle, { merchant: input.merchantName }),
    assets: input.assets,
    body,
    script: input.mandate ? input.assets.subscriptionScript : null,
  });
}

function noticeOf(
  input: { notice?: PortalNotice | undefined; shown: ShownSubscription },
  m: SubscriptionMessages,
) {
  const { notice } = input;
  if (notice === undefined) return null;
  if (notice === 'foreign' || notice === 'rate')
    return html`<p class="notice error" role="alert">${notice === 'rate' ? m.rateLimited : m.cancelForeign}</p>`;
  const text =
    notice === 'canceled'
      ? m.canceledNotice
      : notice === 'switched'
        ? m.wallet.switched
        : fill(m.subscribedNotice, { email: input.shown.subscription.customerEmail });
  return html`<p class="notice" role="status">${text}</p>`;
}

function statusText(shown: ShownSubscription, language: Language, m: SubscriptionMessages): SafeHtml {
  const { state, subscription, plan } = shown;
  const date = (d: Date | null) => (d === null ? '' : moment(d, language, 'date'));
  if (state.status === 'past_due')
    return format(m.status.past_due, { date: date(graceEnd(subscription.anchor, plan, state.period)) });
  if (state.status === 'canceled' || state.status === 'ended')
    return format(m.status[state.status], { date: date(state.endedAt) });
  if (subscription.cancelAt !== null) return format(m.endsOn, { date: date(subscription.cancelAt) });
  return format(m.status[state.status], { date: date(state.periodEnd) });
}

/** The next payment, unless none will come; a plan change asked for, from its first period. */
function facts(input: { shown: ShownSubscription; language: Language }, m: SubscriptionMessages): SafeHtml {
  const { shown, language } = input;
  const { state, subscription: sub, plan } = shown;
  const running = state.status !== 'canceled' && state.status !== 'ended';
  const next = state.period + 1;
  const nextStart = periodStart(sub.anchor, plan.interval, next);
  const hasNext =
    running &&
    (plan.periods === null || next <= plan.periods) &&
    (sub.cancelAt === null || nextStart.getTime() < sub.cancelAt.getTime());
  const change = sub.planChange;
  const nextPrice = change && shown.nextPlan && next >= change.fromPeriod ? shown.nextPlan.price : plan.price;
  return html`<dl class="facts">
<div class="fact"><dt>${m.customer}</dt><dd>${sub.customerEmail}</dd></div>
${
  hasNext
    ? html`<div class="fact"><dt>${m.nextPayment}</dt><dd>${format(m.nextPaymentValue, {
        amount: money(nextPrice, language),
        date: moment(nextStart, language, 'date'),
      })}</dd></div>`
    : null
}
${
  running && change && shown.nextPlan
    ? html`<div class="fact"><dt>${format(m.planChange, {
        date: moment(periodStart(sub.anchor, plan.interval, change.fromPeriod), language, 'date'),
      })}</dt><dd>${shown.nextPlan.name}, ${priceText(shown.nextPlan, language)}</dd></div>`
    : null
}
</dl>`;
}

function paymentsTable(
  shown: ShownSubscription,
  language: Language,
  links: PaymentLinks,
  m: SubscriptionMessages,
): SafeHtml {
  const { subscription: sub, plan } = shown;
  if (shown.periods.length === 0)
    return html`<h2>${m.payments}</h2>
<p class="muted">${m.noPayments}</p>`;
  const row = (p: PeriodPayment) => {
    const start = periodStart(sub.anchor, plan.interval, p.period);
    const end = periodEnd(sub.anchor, plan.interval, p.period);
    const status = p.paymentStatus as keyof SubscriptionMessages['paymentStatuses'];
    const word = m.paymentStatuses[status] ?? p.paymentStatus;
    const receipt = p.paymentStatus === 'paid' ? links.receiptUrl(p.paymentId) : undefined;
    const action =
      p.paymentStatus === 'pending'
        ? html`<a class="button primary" href="/pay/${p.paymentId}?lang=${language}">${m.pay}</a>`
        : receipt
          ? html`<a href="${receipt}">${m.receipt}</a>`
          : html`<a href="/pay/${p.paymentId}?lang=${language}">${m.view}</a>`;
    return html`<tr><td>${p.period}</td><td>${moment(start, language, 'date')} – ${moment(end, language, 'date')}</td><td>${word}</td><td>${action}</td></tr>`;
  };
  return html`<section aria-labelledby="payments-title">
  <h2 id="payments-title">${m.payments}</h2>
  <table class="periods">
    <thead><tr><th scope="col">${m.period}</th><th scope="col">${m.dates}</th><th scope="col">${m.paymentStatus}</th><th scope="col"><span class="visually-hidden">${m.view}</span></th></tr></thead>
    <tbody>${[...shown.periods].reverse().map(row)}</tbody>
  </table>
</section>`;
}

/** "Cancel", while the subscription runs and no cancellation is set: it stops at the end of the period in force. */
function cancelSection(
  input: { shown: ShownSubscription; token: string; language: Language; now: Date },
  m: SubscriptionMessages,
): SafeHtml | null {
  const { state, subscription: sub, plan } = input.shown;
  if (state.status === 'canceled' || state.status === 'ended' || sub.cancelAt !== null) return null;
  const at = cancellationMoment(sub.anchor, plan, input.now, true);
  return html`<section class="subscribe-way" aria-labelledby="cancel-title">
  <h2 id="cancel-title">${m.cancelTitle}</h2>
  <p>${format(m.cancelExplain, { date: moment(at, input.language, 'date') })}</p>
  <form method="post" action="/subscriptions/${input.token}/cancel?lang=${input.language}">
    <button type="submit" class="button">${m.cancel}</button>
  </form>
</section>`;
}
