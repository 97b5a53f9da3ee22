import { ValidationError } from './errors.ts';

/**
 * The languages Paylink speaks to payers and merchants (the checkout, the dashboard, the e-mails); the first is
 * the fallback. One list, here, so that what a merchant may ask for (`customer_language`) is exactly what the
 * pages and the e-mails are written in.
 */
export const LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(text: unknown): text is Language {
  return typeof text === 'string' && (LANGUAGES as readonly string[]).includes(text);
}

/** A BCP-47 tag in its common shapes: a primary subtag, then subtags (`fr`, `fr-CA`, `zh-Hant-TW`, `es-419`). */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/**
 * A payment's `customer_language`: a BCP-47 tag whose language is one we write in, stored as that language
 * (`fr-CA` → `fr`): the e-mails and pages come in languages, not regions. Absent or blank: null.
 */
export function parseCustomerLanguage(input: string | undefined): Language | null {
  const tag = input?.trim();
  if (!tag) return null;
  const primary = LANGUAGE_TAG.test(tag) && tag.length <= 35 ? tag.split('-', 1)[0]!.toLowerCase() : '';
  if (!isLanguage(primary))
    throw new ValidationError(
      'customer_language',
      `must be a language tag of one of: ${LANGUAGES.join(', ')}`,
    );
  return primary;
}

/**
 * The language to write to a payment's customer in: the merchant's choice, else the one the checkout showed the
 * payer, else English (decision 0025).
 */
export function customerLanguageOf(payment: {
  readonly customerLanguage: string | null;
  readonly payerLanguage: string | null;
}): Language {
  for (const language of [payment.customerLanguage, payment.payerLanguage])
    if (isLanguage(language)) return language;
  return LANGUAGES[0];
}
