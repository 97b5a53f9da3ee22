import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { customerLanguageOf, isLanguage, LANGUAGES, parseCustomerLanguage } from './language.ts';

/** The languages Paylink writes in, a merchant's `customer_language`, and whom a customer is written to in. */
describe('isLanguage', () => {
  it('is one of the languages written in, exactly', () => {
    for (const language of LANGUAGES) expect(isLanguage(language)).toBe(true);
    for (const other of ['EN', 'it', '', 'en-GB', undefined, null, 1]) expect(isLanguage(other)).toBe(false);
  });
});

describe('parseCustomerLanguage', () => {
  it('stores a tag as its language, whatever its region, script or case', () => {
    expect(parseCustomerLanguage('fr')).toBe('fr');
    expect(parseCustomerLanguage(' fr-CA ')).toBe('fr');
    expect(parseCustomerLanguage('DE')).toBe('de');
    expect(parseCustomerLanguage('es-419')).toBe('es');
    expect(parseCustomerLanguage('en-Latn-GB')).toBe('en');
  });

  it('is null when absent or blank', () => {
    expect(parseCustomerLanguage(undefined)).toBeNull();
    expect(parseCustomerLanguage('')).toBeNull();
    expect(parseCustomerLanguage('   ')).toBeNull();
  });

  it('refuses a language not written in, and what is no language tag', () => {
    const refused = new ValidationError(
      'customer_language',
      'must be a language tag of one of: en, fr, de, es',
    );
    for (const bad of ['it', 'e', 'english', 'fr_CA', 'fr-', '-fr', 'fr-CA!', 'xfr', 'fr-abcdefghi'])
      expect(() => parseCustomerLanguage(bad), bad).toThrow(refused);
  });

  it('takes a tag of exactly 35 characters, and refuses one of 36', () => {
    const tag = (length: number) =>
      `fr-${'a'.repeat(8)}-${'b'.repeat(8)}-${'c'.repeat(8)}-${'d'.repeat(length - 30)}`;
    expect(tag(35)).toHaveLength(35);
    expect(parseCustomerLanguage(tag(35))).toBe('fr');
    expect(() => parseCustomerLanguage(tag(36))).toThrow(ValidationError);
  });
});

describe('customerLanguageOf', () => {
  it("is the merchant's choice, else the payer's language at checkout, else English", () => {
    expect(customerLanguageOf({ customerLanguage: 'de', payerLanguage: 'fr' })).toBe('de');
    expect(customerLanguageOf({ customerLanguage: null, payerLanguage: 'fr' })).toBe('fr');
    expect(customerLanguageOf({ customerLanguage: 'it', payerLanguage: 'es' })).toBe('es');
    expect(customerLanguageOf({ customerLanguage: null, payerLanguage: 'xx' })).toBe('en');
    expect(customerLanguageOf({ customerLanguage: null, payerLanguage: null })).toBe('en');
  });
});
