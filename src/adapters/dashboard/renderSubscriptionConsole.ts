import type { ConsoleRow, subscriptionConsole } from '../../app/subscriptions/subscriptionConsole.ts';
import { CONSOLE_LIMIT } from '../../app/subscriptions/subscriptionConsole.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import { type SignedInPageInput, signedInPage, time } from './renderDashboard.ts';
import { planPrice, subscriptionBadge } from './renderSubscriptions.ts';
import { SUBSCRIPTION_TEXT } from './subscriptionMessages/index.ts';

/**
 * The operator's console of subscriptions (decision 0062): what failed (past due, their grace running), what is
 * due within the renewal lead, and the next charges, across every merchant.
 */
export function renderSubscriptionConsole(
  input: SignedInPageInput & {
    overview: Awaited<ReturnType<typeof subscriptionConsole>>;
    merchants: ReadonlyMap<string, string>;
  },
): string {
  const { ctx, overview } = input;
  const c = SUBSCRIPTION_TEXT[ctx.lang].console;
  const s = SUBSCRIPTION_TEXT[ctx.lang];
  const table = (
    id: string,
    title: string,
    rows: readonly ConsoleRow[],
    empty: string,
    when: 'grace' | 'next',
  ): SafeHtml => html`<h2 id="${id}">${title}</h2>
${
  rows.length === 0
    ? html`<p class="muted" role="status">${empty}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="${id}"><table>
  <thead><tr><th scope="col">${c.merchant}</th><th scope="col">${s.customer}</th><th scope="col">${s.plan}</th><th scope="col">${s.status}</th><th scope="col">${when === 'grace' ? c.graceEnds : s.nextCharge}</th></tr></thead>
  <tbody>${rows.map((row) => {
    const { subscription: sub, plan, state } = row.shown;
    const moment = when === 'grace' ? row.graceEnds : row.nextCharge;
    return html`<tr><td>${input.merchants.get(sub.merchantId) ?? sub.merchantId}${sub.mode === 'test' ? html` <span class="badge">${s.testMode}</span>` : null}</td><td>${sub.customerEmail}</td><td>${plan.name}<br><span class="muted">${planPrice(ctx, plan)}</span></td><td>${subscriptionBadge(ctx, state.status)}</td><td>${moment ? time(moment) : null}</td></tr>`;
  })}</tbody>
</table></div>`
}`;
  const body = html`<h1>${c.title}</h1>
<p class="muted">${c.intro}</p>
${table('past-due', c.pastDue, overview.pastDue, c.pastDueNone, 'grace')}
${table('due-soon', c.due, overview.dueSoon, c.dueNone, 'next')}
${table('next', c.next, overview.next, c.nextNone, 'next')}
${overview.limited ? html`<p class="muted">${fill(c.limited, { count: CONSOLE_LIMIT })}</p>` : null}`;
  return signedInPage(input.signedIn, ctx, c.title, body);
}
