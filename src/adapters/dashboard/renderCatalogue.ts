import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { CATALOGUE_LIMITS, type CatalogueItem } from '../../domain/posSale.ts';
import { format, html } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import { priceText } from './dashboardFormat.ts';
import { POS_TEXT } from './posMessages/index.ts';
import { csrfField, type PageContext, signedInPage } from './renderDashboard.ts';

/** The add form as posted and refused (its fields shown again, the one at fault marked), or fresh. */
export interface CatalogueForm {
  readonly fields: Readonly<Record<string, string | undefined>>;
  readonly problem?: string | undefined;
  readonly problemField?: string | undefined;
}

/** The merchant's point-of-sale catalogue: its items with "Remove", and "Add item" (decision 0054). */
export function renderCatalogue(
  signedIn: SignedIn,
  ctx: PageContext,
  input: { readonly items: readonly CatalogueItem[]; readonly form: CatalogueForm },
): string {
  const c = POS_TEXT[ctx.lang].catalogue;
  const { form, items } = input;
  const invalid = (name: string) =>
    form.problemField === name ? html` aria-invalid="true" aria-describedby="catalogue-problem"` : null;
  const field = (name: string, fallback = '') => form.fields[name] ?? fallback;
  const row = (
    item: CatalogueItem,
  ) => html`<tr><td>${item.name}</td><td class="num">${priceText(ctx, item.unitPrice)}</td><td>
  <form method="post" action="/dashboard/pos/catalogue/${item.id}/remove">${csrfField(signedIn)}<button type="submit" class="secondary" aria-label="${fill(c.removeItem, { item: item.name })}">${c.remove}</button></form>
</td></tr>`;
  const body = html`<div class="card pos-catalogue">
  <h1>${c.title}</h1>
  <p class="muted">${c.intro}</p>
  ${
    items.length === 0
      ? html`<p>${c.empty}</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${c.title}"><table>
  <thead><tr><th scope="col">${c.name}</th><th scope="col">${c.unitPrice}</th><th scope="col"><span class="visually-hidden">${c.remove}</span></th></tr></thead>
  <tbody>${items.map(row)}</tbody>
</table></div>`
  }
  <p class="muted">${format(c.count, { count: items.length, max: String(CATALOGUE_LIMITS.items) })}</p>
  <form class="stack" method="post" action="/dashboard/pos/catalogue">
    ${csrfField(signedIn)}
    ${form.problem ? html`<p class="error" role="alert" id="catalogue-problem">${form.problem}</p>` : null}
    <label for="item-name">${c.name}</label>
    <input id="item-name" name="name" type="text" required maxlength="60" autocomplete="off" value="${field('name')}"${invalid('name')}>
    <label for="item-price">${c.unitPrice}</label>
    <input id="item-price" name="unit_price" type="text" required inputmode="decimal" autocomplete="off" value="${field('unit_price')}"${invalid('unit_price')}>
    <label for="item-currency">${c.currency}</label>
    <input id="item-currency" name="currency" type="text" required maxlength="4" autocomplete="off" value="${field('currency', items.at(-1)?.unitPrice.currency.code ?? 'EUR')}"${invalid('currency')}>
    <button type="submit">${c.add}</button>
  </form>
  <p><a href="/dashboard/pos">${c.back}</a></p>
</div>`;
  return signedInPage(signedIn, ctx, c.title, body);
}
