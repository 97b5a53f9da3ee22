/**
 * CSV as RFC 4180 writes it: fields separated by commas, records ended by CRLF, a field quoted when it holds a
 * comma, a double quote, CR or LF, and a double quote inside doubled.
 *
 * Spreadsheets run a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula (CSV
 * injection, OWASP): a text field that begins so is written with a leading `'`, which spreadsheets show as text.
 * Numbers are ours (exact decimals, never negative) and left as they are, so they stay numbers.
 *
 * A spreadsheet does not always split on commas: Excel opens a `.csv` with the list separator of the system's
 * locale, which is `;` in most of Europe (French, German, Spanish …) and `؛` or `،` in Arabic ones, and import
 * dialogs offer tab and `|`. Read so, a field `x;=1+2` is two cells, and the second one, `=1+2`, a formula; and
 * a reader that splits elsewhere than we do no longer sees our quotes where a cell begins. So every piece of a
 * text field that one of those separators (or a line break) could make a cell of is defused as the first one
 * is: an `'` goes before a piece that begins, after any spaces or double quotes (which such a reader may strip),
 * with a formula character. A field holding any of them is quoted too, for the readers that do honour quotes.
 */
const PIECE_AT_FORMULA = /(^|[,;\t|\r\n\u060C\u061B])(?=[ "]*[=+\-@\t\r])/g;
const NEEDS_QUOTES = /[",;\t|\r\n\u060C\u061B]/;

export type CsvCell = { readonly text: string } | { readonly number: string } | null;

export const text = (value: string | null | undefined): CsvCell => (value == null ? null : { text: value });
export const number = (value: string): CsvCell => ({ number: value });

function field(cell: CsvCell): string {
  if (cell === null) return '';
  const raw = 'number' in cell ? cell.number : cell.text.replace(PIECE_AT_FORMULA, "$1'");
  return NEEDS_QUOTES.test(raw) ? `"${raw.replaceAll('"', '""')}"` : raw;
}

export function csvRecord(cells: readonly CsvCell[]): string {
  return `${cells.map(field).join(',')}\r\n`;
}

export function csvHeader(names: readonly string[]): string {
  return csvRecord(names.map((name) => ({ text: name })));
}
