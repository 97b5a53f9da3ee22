/**
 * CSV as RFC 4180 writes it: fields separated by commas, records ended by CRLF, a field quoted when it holds a
 * comma, a double quote, CR or LF, and a double quote inside doubled.
 *
 * Spreadsheets run a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula (CSV
 * injection, OWASP): a text field that begins so is written with a leading `'`, which spreadsheets show as text.
 * Numbers are ours (exact decimals, never negative) and left as they are, so they stay numbers.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export type CsvCell = { readonly text: string } | { readonly number: string } | null;

export const text = (value: string | null | undefined): CsvCell => (value == null ? null : { text: value });
export const number = (value: string): CsvCell => ({ number: value });

function field(cell: CsvCell): string {
  if (cell === null) return '';
  const raw = 'number' in cell ? cell.number : FORMULA_START.test(cell.text) ? `'${cell.text}` : cell.text;
  return NEEDS_QUOTES.test(raw) ? `"${raw.replaceAll('"', '""')}"` : raw;
}

export function csvRecord(cells: readonly CsvCell[]): string {
  return `${cells.map(field).join(',')}\r\n`;
}

export function csvHeader(names: readonly string[]): string {
  return csvRecord(names.map((name) => ({ text: name })));
}
