import type { Mandate } from '../../app/subscriptions/mandatePorts.ts';
import { allowanceFor, OPEN_ENDED_ALLOWANCE_PERIODS } from '../../app/subscriptions/mandates.ts';
import type { ShownSubscription } from '../../app/subscriptions/subscriptions.ts';
import { USDC } from '../../domain/currencies.ts';
import { formatMoney } from '../../domain/money.ts';
import { approveCallData } from '../chain/subscriptionCharger.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import type { Language } from '../web/language.ts';
import { formatPriceAmount } from '../web/localeFormat.ts';
import type { SubscriptionMessages } from './subscriptionMessages/index.ts';

function usdc(baseUnits: bigint, language: Language): string {
  return `${formatPriceAmount(formatMoney({ currency: USDC, minorUnits: baseUnits }), language)} USDC`;
}

/**
 * How many periods a top-up allows: 12 for a plan that runs until canceled, else the periods not paid yet (12 at
 * most): never more than the plan can still charge.
 */
export function topUpPeriods(shown: ShownSubscription): number {
  const { plan, periods } = shown;
  if (plan.periods === null) return OPEN_ENDED_ALLOWANCE_PERIODS;
  const paid = periods.filter((p) => p.paymentStatus === 'paid').length;
  return Math.max(1, Math.min(OPEN_ENDED_ALLOWANCE_PERIODS, plan.periods - paid));
}

/**
 * The portal's allowance (decision 0062): what the charger may still take from the wallet, read from the chain
 * when the page is made, and, while the mandate is active and less than the next period's cap is left, "Allow 12
 * more periods": the script (assets/subscription.js) has the wallet send USDC's `approve` of the charger for them.
 */
export function allowanceSection(
  input: { shown: ShownSubscription; mandate: Mandate; left: bigint; language: Language },
  m: SubscriptionMessages,
): SafeHtml {
  const { mandate, left, language } = input;
  const w = m.wallet;
  const { cap } = mandate.terms;
  const short = mandate.status === 'active' && left < cap;
  const periods = topUpPeriods(input.shown);
  const total = usdc(allowanceFor(cap, periods), language);
  return html`<section class="subscribe-way" id="allowance" aria-label="${w.allowanceLeft}" data-chain-id="${String(mandate.chainId)}" data-token="${mandate.terms.token}" data-approve-data="${approveCallData(mandate.charger, allowanceFor(cap, periods))}">
  <dl class="facts">
    <div class="fact"><dt>${w.allowanceLeft}</dt><dd data-allowance-left>${usdc(left, language)}</dd></div>
  </dl>
  ${
    short
      ? html`<p>${fill(w.topUpExplain, { cap: usdc(cap, language), periods, total })}</p>
  <button type="button" class="button primary" data-top-up hidden>${fill(w.topUp, { periods })}</button>
  <p class="notice" role="status" data-live hidden></p>
  <div hidden><span data-message="working">${w.working}</span><span data-message="rejected">${w.rejected}</span><span data-message="failed">${w.failed}</span><span data-message="toppedUp">${fill(w.toppedUp, { total })}</span></div>`
      : null
  }
</section>`;
}
