import { html, type SafeHtml } from '../web/html.ts';
import { fill } from '../web/i18n.ts';
import { type FilledForm, textField } from './formFields.ts';
import type { PageContext } from './renderDashboard.ts';

/**
 * The rows of line items on "New payment" and "New link" (decision 0051): a few fixed rows of name, quantity and
 * price of one, posted as plain fields (no script: the pages' CSP allows none of their own here, and a form
 * without one works everywhere). A longer list is the API's.
 */
export const ITEM_ROWS = 3;

const rowNumbers = Array.from({ length: ITEM_ROWS }, (_, i) => i + 1);

/** The rows' field names, as the forms list the fields they post back. */
export const LINE_ITEM_FIELDS: readonly string[] = rowNumbers.flatMap((row) => [
  `item_name_${row}`,
  `item_quantity_${row}`,
  `item_price_${row}`,
]);

/**
 * The rows as the create takes them (`line_items`), blank rows left out, and which row each line came from, so
 * that a fault named `line_items[1].quantity` marks the field the merchant typed it in. A row with a name and no
 * quantity is one of it.
 */
export function lineItemsOf(fields: Readonly<Record<string, string | undefined>>): {
  readonly lineItems: readonly { name: string; quantity: string; unit_price: string }[] | undefined;
  readonly fieldOf: (problemField: string | undefined) => string | undefined;
} {
  const rows = rowNumbers.filter((row) =>
    ['name', 'quantity', 'price'].some((part) => (fields[`item_${part}_${row}`] ?? '') !== ''),
  );
  const lineItems = rows.map((row) => ({
    name: fields[`item_name_${row}`] ?? '',
    quantity: fields[`item_quantity_${row}`] || '1',
    unit_price: fields[`item_price_${row}`] ?? '',
  }));
  const parts: Record<string, string> = { name: 'name', quantity: 'quantity', unit_price: 'price' };
  return {
    lineItems: lineItems.length > 0 ? lineItems : undefined,
    fieldOf(problemField) {
      const match = /^line_items\[(\d+)\]\.(name|quantity|unit_price)$/.exec(problemField ?? '');
      const row = match ? rows[Number(match[1])] : undefined;
      if (!match || row === undefined) return problemField === 'line_items' ? 'item_name_1' : problemField;
      return `item_${parts[match[2]!]}_${row}`;
    },
  };
}

/** The rows, each field labelled with its row ("Item 2: quantity"), filled as the merchant typed them. */
export function lineItemRows(ctx: PageContext, form: FilledForm): SafeHtml {
  const n = ctx.t.newPayment;
  const row = (number: number) => {
    const label = (message: typeof n.itemName) => fill(message, { row: String(number) });
    return html`<div class="item-row">
      ${textField(form, `item_name_${number}`, label(n.itemName), html`maxlength="200" autocomplete="off"`)}
      ${textField(form, `item_quantity_${number}`, label(n.itemQuantity), html`inputmode="numeric" pattern="[0-9]*" autocomplete="off" placeholder="1"`)}
      ${textField(form, `item_price_${number}`, label(n.itemPrice), html`inputmode="decimal" autocomplete="off"`)}
    </div>`;
  };
  return html`<fieldset class="items">
      <legend>${n.items} <span class="muted">${n.itemsHint}</span></legend>
      ${rowNumbers.map(row)}
    </fieldset>`;
}
