import { describe, expect, it } from 'vitest';
import { csvHeader, csvRecord, number, text } from './csv.ts';

describe('CSV records (RFC 4180)', () => {
  it('makes no text cell of a missing value: null and undefined are both an empty cell', () => {
    expect(text(null)).toBeNull();
    expect(text(undefined)).toBeNull();
    expect(text('')).toStrictEqual({ text: '' });
  });

  it('separates with commas and ends with CRLF; empty for null', () => {
    expect(csvRecord([text('a'), number('10.00'), null, text('')])).toBe('a,10.00,,\r\n');
    expect(csvHeader(['payment_id', 'amount'])).toBe('payment_id,amount\r\n');
  });

  it('quotes a field holding a comma, a quote, CR or LF, and doubles the quotes', () => {
    expect(csvRecord([text('a,b')])).toBe('"a,b"\r\n');
    expect(csvRecord([text('say "hi"')])).toBe('"say ""hi"""\r\n');
    expect(csvRecord([text('two\nlines')])).toBe('"two\nlines"\r\n');
    expect(csvRecord([text('cr\rhere')])).toBe('"cr\rhere"\r\n');
    expect(csvRecord([text('plain text')])).toBe('plain text\r\n');
  });

  it('defuses text a spreadsheet would run as a formula, and only text', () => {
    for (const start of ['=', '+', '-', '@', '\t'])
      expect(csvRecord([text(`${start}SUM(A1)`)])).toBe(`'${start}SUM(A1)\r\n`);
    expect(csvRecord([text('\rX')])).toBe(`"'\rX"\r\n`);
    expect(csvRecord([text('=HYPERLINK("http://x","y")')])).toBe('"\'=HYPERLINK(""http://x"",""y"")"\r\n');
    expect(csvRecord([text('a=b')])).toBe('a=b\r\n');
    expect(csvRecord([number('12.50')])).toBe('12.50\r\n');
  });
});
