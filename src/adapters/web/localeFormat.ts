import type { Language } from './language.ts';

/**
 * Numbers and times as the customer reads them in the page's language ("27,00" in French and German), with
 * `Intl`. assets/checkout.js formats its live updates with exactly these options, so the first render and
 * every update agree. Amounts are formatted from their exact decimal strings (Intl.NumberFormat reads a string
 * as a decimal, not as a float), so 12345678.123456 USDC is never rounded. What the customer copies into a
 * wallet stays the plain "27.00" (the copy button's `data-value`).
 */

/** The locale each language is written in: number separators, month names, day order. */
export const LOCALES: Readonly<Record<Language, string>> = {
  en: 'en-GB',
  fr: 'fr-FR',
  de: 'de-DE',
  es: 'es-ES',
};

/** Below this, a time alone says which moment is meant; further away the date is shown too. */
const TIME_ONLY_SECONDS = 12 * 3600;

/** A USDC amount ("27.00", "1.2345") with 2 to 6 decimals: "27,00", "1,2345", "1 234,50". */
export function formatUsdcAmount(decimal: string, language: Language): string {
  return formatDecimalText(decimal, language, 2, 6);
}

/** A price in its currency's own precision as written ("25.00" → "25,00"; "500" JPY → "500"). */
export function formatPriceAmount(decimal: string, language: Language): string {
  const places = decimal.split('.')[1]?.length ?? 0;
  return formatDecimalText(decimal, language, places, places);
}

/** An exchange rate ("1.08000000" → "1.08", "1,08"): at least 2 decimals, at most the 8 stored. */
export function formatRateValue(decimal: string, language: Language): string {
  return formatDecimalText(decimal, language, 2, 8);
}

function formatDecimalText(decimal: string, language: Language, min: number, max: number): string {
  if (!/^\d+(\.\d+)?$/.test(decimal)) throw new RangeError(`not a decimal: ${decimal}`);
  const format = new Intl.NumberFormat(LOCALES[language], {
    minimumFractionDigits: min,
    maximumFractionDigits: max,
    roundingMode: 'trunc',
  } as Intl.NumberFormatOptions);
  // A decimal string is formatted exactly (Intl.NumberFormat v3); the cast only satisfies the ES2023 typings.
  return format.format(decimal as unknown as number);
}

export type MomentStyle = 'time' | 'date';

/** A time alone when the moment is less than 12 hours from now (either way), else with its date. */
export function momentStyle(date: Date, now: Date): MomentStyle {
  return Math.abs(date.getTime() - now.getTime()) < TIME_ONLY_SECONDS * 1000 ? 'time' : 'date';
}

/**
 * A moment as "14:05 UTC", or with its date, "21 Nov 2026, 14:05 UTC". The server writes UTC (it does not
 * know the customer's zone); the script rewrites it in the browser's own zone with the same options.
 */
export function formatMoment(date: Date, language: Language, style: MomentStyle): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    ...(style === 'date' ? { day: 'numeric', month: 'short', year: 'numeric' } : {}),
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(date);
}
