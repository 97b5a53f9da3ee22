/**
 * An amount as a person types it into a page, read as the service's decimal: spaces (a thousands separator in
 * French) dropped, and a decimal comma ("12,50", as most of the pages' languages write it) read as a point. Two
 * decimals at most after a comma: "1,000" stays what it is (a thousand, to an English reader) and is refused.
 * Used by the checkout's link pages and the point of sale.
 */
export function typedAmount(text: string): string {
  const compact = text.replace(/[\s\u00a0\u202f]/g, '');
  return /^\d+,\d{1,2}$/.test(compact) ? compact.replace(',', '.') : compact;
}
