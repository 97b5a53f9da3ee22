import { describe, expect, it } from 'vitest';
import { plainText, textProblem } from './text.ts';

describe('textProblem', () => {
  it('accepts plain text, including characters outside the BMP', () => {
    expect(textProblem('Café Ünïcode 😀 – ok')).toBeUndefined();
    expect(textProblem('')).toBeUndefined();
  });

  it('refuses C0 and C1 control characters and DEL', () => {
    for (const c of ['\u0000', '\n', '\u001f', '\u007f', '\u0085', '\u009f']) {
      expect(textProblem(`a${c}b`)).toBe('must not contain control characters');
    }
  });

  it('refuses a lone half of a surrogate pair, wherever it stands', () => {
    const high = '\ud83d';
    const low = '\ude00';
    for (const text of [high, low, `a${high}`, `${high}a`, `${low}a`, `a${low}`, `${low}${high}`]) {
      expect(textProblem(text)).toBe('must be valid Unicode text');
    }
  });
});

describe('plainText', () => {
  it('returns the text as is, or throws naming the field', () => {
    expect(plainText('name', ' Shop ')).toBe(' Shop ');
    expect(() => plainText('name', 'a\u0000')).toThrow('name: must not contain control characters');
  });
});
