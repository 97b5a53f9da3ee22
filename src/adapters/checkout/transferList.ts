import { formatUsdc } from '../../domain/money.ts';
import { html, type SafeHtml } from '../web/html.ts';
import type { Language } from '../web/language.ts';
import { formatUsdcAmount } from '../web/localeFormat.ts';
import type { CheckoutTransfer } from './checkoutView.ts';
import type { Messages } from './messages/index.ts';
import { hiddenAttr } from './pageLayout.ts';

/**
 * Every transfer that counts, each with its explorer link: the script rebuilds the list from status.json with
 * clones of the same item (the <template> rendered below), so both agree.
 */
export function transferList(
  transfers: readonly CheckoutTransfer[],
  language: Language,
  m: Messages,
): SafeHtml {
  return html`<div class="tx" data-tx${hiddenAttr(transfers.length === 0)}><p class="label">${m.transfers}</p>
    <ul data-transfers>${transfers.map((t) => transferItem(t, language, m))}</ul></div>`;
}

export function transferItem(t: CheckoutTransfer | null, language: Language, m: Messages): SafeHtml {
  const amount = t ? formatUsdcAmount(formatUsdc(t.amountBaseUnits), language) : '';
  return html`<li><strong class="nowrap"><span data-t="amount">${amount}</span> USDC</strong> <span class="muted" data-t="pending"${hiddenAttr(t?.final !== false)}>(${m.transferConfirming})</span>
      <code class="hash" data-t="txid">${t?.txid ?? ''}</code>
      <a data-t="link" href="${t?.url ?? '#'}"${hiddenAttr(!t?.url)}>${m.viewOnExplorer}</a></li>`;
}
