import type { Mandate } from '../../app/subscriptions/mandatePorts.ts';
import type { ShownSubscription } from '../../app/subscriptions/subscriptions.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { nextChargeAt, type SubscriptionStatus } from '../../domain/subscription.ts';
import { INTERVAL_UNITS } from '../../domain/subscriptionPeriods.ts';
import type { SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { subscribeUrl } from '../web/checkoutUrls.ts';
import { format, html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import { priceText } from './dashboardFormat.ts';
import { type FilledForm, textField } from './formFields.ts';
import {
  csrfField,
  type PageContext,
  type SignedInPageInput,
  signedInPage,
  time,
} from './renderDashboard.ts';
import { SUBSCRIPTION_TEXT, type SubscriptionText } from './subscriptionMessages/index.ts';

// The merchant's subscription pages (decision 0062): subscriptions, one subscription, plans.

const STATUS_CLASS: Readonly<Record<SubscriptionStatus, string>> = {
  trialing: 'pending',
  active: 'paid',
  past_due: 'failed',
  canceled: 'expired',
  ended: 'expired',
};

/** A subscription's status as a badge whose words say it (the colour only repeats it). */
export function subscriptionBadge(ctx: PageContext, status: SubscriptionStatus): SafeHtml {
  const s = SUBSCRIPTION_TEXT[ctx.lang];
  return html`<span class="status status-${STATUS_CLASS[status]}">${s.statuses[status]}</span>`;
}

/** "9.90 EUR per month". */
export function planPrice(ctx: PageContext, plan: SubscriptionPlan): string {
  const s = SUBSCRIPTION_TEXT[ctx.lang];
  return `${priceText(ctx, plan.price)} ${fill(s.every[plan.interval.unit], { count: plan.interval.count })}`;
}

const modeQuery = (mode: KeyMode, first = '?') => (mode === 'test' ? `${first}mode=test` : '');

function heading(title: string, mode: KeyMode, s: SubscriptionText): SafeHtml {
  return html`<h1>${title}${mode === 'test' ? html` <span class="badge">${s.testMode}</span>` : null}</h1>`;
}

export function renderSubscriptions(
  input: SignedInPageInput & {
    mode: KeyMode;
    subscriptions: readonly ShownSubscription[];
    nextCursor: string | null;
  },
): string {
  const { ctx, mode } = input;
  const s = SUBSCRIPTION_TEXT[ctx.lang];
  const row = (shown: ShownSubscription) => {
    const { subscription: sub, plan, state } = shown;
    const next = nextChargeAt(sub, plan, state);
    return html`<tr>
  <td><a href="/dashboard/subscriptions/${sub.id}${modeQuery(mode)}">${sub.customerEmail}</a></td>
  <td>${plan.name}<br><span class="muted">${planPrice(ctx, plan)}</span></td>
  <td>${subscriptionBadge(ctx, state.status)}</td>
  <td>${next ? time(next) : html`<span class="muted">${s.noNextCharge}</span>`}</td>
  <td>${time(sub.startedAt)}</td>
</tr>`;
  };
  const body = html`${heading(s.title, mode, s)}
<p class="muted">${s.intro}</p>
<div class="actions">
  <a class="button" href="/dashboard/subscriptions/plans${modeQuery(mode)}">${s.showPlans}</a>
  <a href="/dashboard/subscriptions${mode === 'test' ? '' : '?mode=test'}">${mode === 'test' ? s.showLive : s.showTest}</a>
</div>
${
  input.subscriptions.length === 0
    ? html`<p class="muted" role="status">${s.none}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${s.title}"><table>
  <thead><tr><th scope="col">${s.customer}</th><th scope="col">${s.plan}</th><th scope="col">${s.status}</th><th scope="col">${s.nextCharge}</th><th scope="col">${s.started}</th></tr></thead>
  <tbody>${input.subscriptions.map(row)}</tbody>
</table></div>`
}
${input.nextCursor ? html`<p><a href="/dashboard/subscriptions?${new URLSearchParams({ ...(mode === 'test' ? { mode } : {}), cursor: input.nextCursor }).toString()}">${s.older}</a></p>` : null}`;
  return signedInPage(input.signedIn, ctx, s.title, body);
}

/** One subscription: its facts, its periods' payments (each linked to its page) and "Cancel". */
export function renderSubscription(
  input: SignedInPageInput & {
    mode: KeyMode;
    shown: ShownSubscription;
    /** The plans it may move to (active, same interval and mode); none: no change offered. */
    plans: readonly SubscriptionPlan[];
    /** Its mandate (pull renewal), if the customer gave one. */
    mandate?: Mandate | undefined;
  },
): string {
  const { ctx, mode, shown } = input;
  const s = SUBSCRIPTION_TEXT[ctx.lang];
  const { subscription: sub, plan, state } = shown;
  const next = nextChargeAt(sub, plan, state);
  const fact = (label: string, value: SafeHtml | string) => html`<dt>${label}</dt><dd>${value}</dd>`;
  const period =
    state.period === 0
      ? format(s.trial, { end: time(sub.anchor) })
      : state.periodStart && state.periodEnd
        ? format(s.periodValue, {
            period: state.period,
            start: time(state.periodStart),
            end: time(state.periodEnd),
          })
        : String(state.period);
  const change = sub.planChange;
  const facts = html`<dl class="facts">
  ${fact(s.status, subscriptionBadge(ctx, state.status))}
  ${fact(s.customer, sub.customerEmail)}
  ${fact(s.plan, `${plan.name}, ${planPrice(ctx, plan)}`)}
  ${change && shown.nextPlan ? fact(fill(s.pendingPlan, { period: change.fromPeriod }), `${shown.nextPlan.name}, ${planPrice(ctx, shown.nextPlan)}`) : null}
  ${state.status === 'canceled' || state.status === 'ended' ? null : fact(s.period, period)}
  ${fact(s.nextCharge, next ? time(next) : s.noNextCharge)}
  ${sub.cancelAt && state.status !== 'canceled' ? fact(s.cancelAt, time(sub.cancelAt)) : null}
  ${sub.canceledBy ? fact(s.canceledBy, s.by[sub.canceledBy]) : null}
  ${state.canceledReason ? fact(s.reason, s.canceledReason[state.canceledReason]) : null}
  ${state.endedAt ? fact(s.endedAt, time(state.endedAt)) : null}
  ${input.mandate ? fact(s.wallet, walletState(input.mandate, s)) : null}
</dl>`;
  const payments =
    shown.periods.length === 0
      ? html`<p class="muted">${s.noPayments}</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${s.payments}"><table>
  <thead><tr><th scope="col">#</th><th scope="col">${s.paymentStatus}</th><th scope="col">${s.paidAt}</th></tr></thead>
  <tbody>${shown.periods.map(
    (p) =>
      html`<tr><td>${p.period}</td><td><a href="/dashboard/payments/${p.paymentId}">${ctx.t.status[p.paymentStatus as keyof typeof ctx.t.status] ?? p.paymentStatus}</a></td><td>${p.paidAt ? time(p.paidAt) : null}</td></tr>`,
  )}</tbody>
</table></div>`;
  const running = state.status !== 'canceled' && state.status !== 'ended';
  const cancelButton = (when: 'period_end' | 'now', label: string, secondary: boolean) =>
    html`<form method="post" action="/dashboard/subscriptions/${sub.id}/cancel">${csrfField(input.signedIn)}<input type="hidden" name="mode" value="${mode}"><input type="hidden" name="when" value="${when}"><button type="submit"${secondary ? html` class="secondary"` : null}>${label}</button></form>`;
  const cancel = running
    ? html`<h2>${s.cancelTitle}</h2>
<p class="muted">${s.cancelHint}</p>
<div class="actions">${sub.cancelAt === null ? cancelButton('period_end', s.cancelAtPeriodEnd, false) : null}${cancelButton('now', s.cancelNow, true)}</div>`
    : null;
  const title = fill(s.detailTitle, { customer: sub.customerEmail });
  const body = html`<div class="card">
${heading(title, mode, s)}
${facts}
<h2>${s.payments}</h2>
${payments}
${running && sub.cancelAt === null ? changeForm(input, s) : null}
${cancel}
<p><a href="/dashboard/subscriptions${modeQuery(mode)}">${s.back}</a></p>
</div>`;
  return signedInPage(input.signedIn, ctx, title, body);
}

/** Whether the customer's wallet is charged: yes (which wallet), switched to e-mail, or canceled on chain. */
function walletState(mandate: Mandate, s: SubscriptionText): SafeHtml {
  const onChain = mandate.canceledOnChain;
  if (onChain)
    return format(s.walletState.canceledOnChain, {
      date: time(onChain.at),
      tx: html`<code class="hash">${onChain.txHash}</code>`,
    });
  if (mandate.status === 'canceled') return html`${s.walletState.switched}`;
  return format(s.walletState.active, { wallet: html`<code>${mandate.terms.customer}</code>` });
}

/**
 * "Change plan": another plan of the same interval, billed from the next period not yet billed; the plan in force
 * withdraws a pending change.
 */
function changeForm(
  input: SignedInPageInput & {
    mode: KeyMode;
    shown: ShownSubscription;
    plans: readonly SubscriptionPlan[];
  },
  s: SubscriptionText,
): SafeHtml | null {
  const { shown, ctx } = input;
  const pending = shown.subscription.planChange;
  const choices = pending ? [shown.plan, ...input.plans] : input.plans;
  if (choices.length === 0) return null;
  return html`<h2 id="change-plan">${s.changeTitle}</h2>
<p class="muted">${s.changeHint}</p>
<form class="stack" method="post" action="/dashboard/subscriptions/${shown.subscription.id}/change-plan" aria-labelledby="change-plan">
  ${csrfField(input.signedIn)}<input type="hidden" name="mode" value="${input.mode}">
  <label for="plan_id">${s.plan}</label>
  <select id="plan_id" name="plan_id">${choices.map(
    (p) =>
      html`<option value="${p.id}"${pending?.planId === p.id ? html` selected` : null}>${p.name}, ${planPrice(ctx, p)}</option>`,
  )}</select>
  <button type="submit">${s.changeButton}</button>
</form>`;
}

/** The plan form as posted and refused, or fresh; `testAvailable`: the mode can be chosen. */
export interface PlanForm extends FilledForm {
  readonly problem?: string | undefined;
  readonly testAvailable?: boolean;
}

/** The merchant's plans of one mode: each with its subscribe page and "Archive", then "New plan". */
export function renderPlans(
  input: SignedInPageInput & {
    mode: KeyMode;
    plans: readonly SubscriptionPlan[];
    nextCursor: string | null;
    checkoutUrl: string;
    form: PlanForm;
  },
): string {
  const { ctx, mode, signedIn } = input;
  const s = SUBSCRIPTION_TEXT[ctx.lang];
  const row = (plan: SubscriptionPlan) => {
    const url = subscribeUrl(input.checkoutUrl, plan.id);
    const archive =
      plan.archivedAt === null
        ? html`<form method="post" action="/dashboard/subscriptions/plans/${plan.id}/archive">${csrfField(signedIn)}<input type="hidden" name="mode" value="${mode}"><button type="submit" class="secondary" aria-label="${fill(s.archivePlan, { plan: plan.name })}">${s.archive}</button></form>`
        : html`<span class="status status-expired">${s.archived}</span>`;
    return html`<tr>
  <td>${plan.name}</td>
  <td>${planPrice(ctx, plan)}</td>
  <td>${plan.archivedAt === null ? html`<a href="${url}">${s.subscribePage}</a>` : null}</td>
  <td>${archive}</td>
</tr>`;
  };
  const body = html`${heading(s.plansTitle, mode, s)}
<p class="muted">${s.plansIntro}</p>
<div class="actions">
  <a class="button" href="/dashboard/subscriptions${modeQuery(mode)}">${s.showSubscriptions}</a>
  <a href="/dashboard/subscriptions/plans${mode === 'test' ? '' : '?mode=test'}">${mode === 'test' ? s.showLive : s.showTest}</a>
</div>
${
  input.plans.length === 0
    ? html`<p class="muted" role="status">${s.noPlans}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${s.plansTitle}"><table>
  <thead><tr><th scope="col">${s.name}</th><th scope="col">${s.price}</th><th scope="col">${s.subscribePage}</th><th scope="col"><span class="visually-hidden">${s.archive}</span></th></tr></thead>
  <tbody>${input.plans.map(row)}</tbody>
</table></div>`
}
${input.nextCursor ? html`<p><a href="/dashboard/subscriptions/plans?${new URLSearchParams({ ...(mode === 'test' ? { mode } : {}), cursor: input.nextCursor }).toString()}">${s.older}</a></p>` : null}
${planForm(input, s)}`;
  return signedInPage(signedIn, ctx, s.plansTitle, body);
}

function planForm(
  input: SignedInPageInput & { mode: KeyMode; form: PlanForm },
  s: SubscriptionText,
): SafeHtml {
  const { form, mode } = input;
  const number = html`inputmode="numeric" pattern="[0-9]*" autocomplete="off"`;
  const unit = form.fields.interval ?? 'month';
  const chosenMode = form.fields.mode === 'test' ? 'test' : mode;
  return html`<h2 id="new-plan">${s.newPlan}</h2>
<form class="stack" method="post" action="/dashboard/subscriptions/plans" aria-labelledby="new-plan">
  ${csrfField(input.signedIn)}
  ${form.problem ? html`<p class="error" role="alert" id="form-problem">${form.problem}</p>` : null}
  ${textField(form, 'name', s.name, html`type="text" required maxlength="200" autocomplete="off"`)}
  ${textField(form, 'description', s.description, html`type="text" maxlength="2000" autocomplete="off"`, s.optional)}
  ${textField(form, 'amount', s.amount, html`type="text" required inputmode="decimal" autocomplete="off"`)}
  ${textField({ ...form, fields: { currency: 'USDC', ...form.fields } }, 'currency', s.currency, html`type="text" required maxlength="8" autocomplete="off"`)}
  <label for="interval">${s.interval}</label>
  <select id="interval" name="interval">${INTERVAL_UNITS.map(
    (u) => html`<option value="${u}"${u === unit ? html` selected` : null}>${s.units[u]}</option>`,
  )}</select>
  ${textField({ ...form, fields: { interval_count: '1', ...form.fields } }, 'interval_count', s.intervalCount, number)}
  ${textField({ ...form, fields: { trial_days: '0', ...form.fields } }, 'trial_days', s.trialDays, number)}
  ${textField({ ...form, fields: { grace_days: '3', ...form.fields } }, 'grace_days', s.graceDays, number)}
  ${textField(form, 'periods', s.periods, number, s.periodsHint)}
  ${
    form.testAvailable
      ? html`<label for="mode">${s.mode}</label>
  <select id="mode" name="mode"><option value="live"${chosenMode === 'live' ? html` selected` : null}>${s.live}</option><option value="test"${chosenMode === 'test' ? html` selected` : null}>${s.test}</option></select>`
      : html`<input type="hidden" name="mode" value="live">`
  }
  <button type="submit">${s.create}</button>
</form>`;
}
