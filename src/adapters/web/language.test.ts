import { describe, expect, it } from 'vitest';
import { negotiateLanguage } from './language.ts';

describe('negotiateLanguage', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['fr', 'fr'],
    ['de-DE,de;q=0.9,en;q=0.8', 'de'],
    ['es-419', 'es'],
    ['FR-ca', 'fr'],
    ['it, es;q=0.5', 'es'],
    ['it, pt', 'en'],
  ])('%j → %s', (header, expected) => {
    expect(negotiateLanguage(header)).toBe(expected);
  });

  it('orders by q, not by position, and keeps header order on ties', () => {
    expect(negotiateLanguage('en;q=0.3, fr;q=0.8, de;q=0.5')).toBe('fr');
    expect(negotiateLanguage('de;q=0.7, es;q=0.7')).toBe('de');
    expect(negotiateLanguage('es;q=0.7, de;q=0.7')).toBe('es');
    expect(negotiateLanguage('en;q=0.5, de')).toBe('de');
  });

  it('treats q=0 as a refusal', () => {
    expect(negotiateLanguage('fr;q=0, de;q=0.1')).toBe('de');
    expect(negotiateLanguage('en;q=0, *')).toBe('fr');
    expect(negotiateLanguage('en;q=0')).toBe('en'); // nothing acceptable left: the fallback, not an error
  });

  it('lets * stand for a language the header does not name', () => {
    expect(negotiateLanguage('it, *;q=0.5')).toBe('en');
    expect(negotiateLanguage('en;q=0.1, *;q=0.5')).toBe('fr');
  });

  it('ignores malformed ranges and q values instead of failing', () => {
    expect(negotiateLanguage('fr;q=2, de')).toBe('de');
    expect(negotiateLanguage('fr;q=abc, es;q=0.4')).toBe('es');
    expect(negotiateLanguage('<script>, de;q=0.1')).toBe('de');
    expect(negotiateLanguage(';;;,,, es')).toBe('es');
    expect(negotiateLanguage('de;q=0.5555')).toBe('en'); // at most 3 decimals
  });

  it('accepts whitespace around parameters', () => {
    expect(negotiateLanguage(' fr ; q = 0.2 , de ; q=0.1 ')).toBe('fr');
  });

  it('bounds the work on a huge header', () => {
    expect(negotiateLanguage(`${'xx, '.repeat(10_000)}fr`)).toBe('en');
  });
});
