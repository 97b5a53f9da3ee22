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
    for (const start of ['=', '+', '-', '@'])
      expect(csvRecord([text(`${start}SUM(A1)`)])).toBe(`'${start}SUM(A1)\r\n`);
    expect(csvRecord([text('\tSUM(A1)')])).toBe(`"'\tSUM(A1)"\r\n`);
    expect(csvRecord([text('\rX')])).toBe(`"'\rX"\r\n`);
    expect(csvRecord([text('=HYPERLINK("http://x","y")')])).toBe('"\'=HYPERLINK(""http://x"",""y"")"\r\n');
    expect(csvRecord([text('a=b')])).toBe('a=b\r\n');
    expect(csvRecord([number('12.50')])).toBe('12.50\r\n');
  });

  it('quotes a field that the list separator of another locale would split', () => {
    for (const separator of [';', '\t', '|', '\u061B', '\u060C'])
      expect(csvRecord([text(`a${separator}b`)])).toBe(`"a${separator}b"\r\n`);
  });

  it('defuses every piece that a separator of any locale, or a line break, could make a cell of', () => {
    // French, German and Spanish Excel split on `;`: without the `'`, the second cell would be `=1+2`.
    expect(csvRecord([text('x;=1+2')])).toBe(`"x;'=1+2"\r\n`);
    expect(csvRecord([text('x,+1')])).toBe(`"x,'+1"\r\n`);
    expect(csvRecord([text('x\t-1')])).toBe(`"x\t'-1"\r\n`);
    expect(csvRecord([text('x|@cmd')])).toBe(`"x|'@cmd"\r\n`);
    expect(csvRecord([text('x\u061B=1')])).toBe(`"x\u061B'=1"\r\n`);
    expect(csvRecord([text('x\u060C=1')])).toBe(`"x\u060C'=1"\r\n`);
    expect(csvRecord([text('x\n=1')])).toBe(`"x\n'=1"\r\n`);
    expect(csvRecord([text('x\r=1')])).toBe(`"x\r'=1"\r\n`);
    // Spaces and double quotes before the formula, which a reader may strip or take for a field's quotes.
    expect(csvRecord([text('x; =1')])).toBe(`"x;' =1"\r\n`);
    expect(csvRecord([text('x;"=1"')])).toBe(`"x;'""=1"""\r\n`);
    expect(csvRecord([text(' =1')])).toBe(`' =1\r\n`);
    // Every piece, not the first one only; a piece that is no formula is left as it is.
    expect(csvRecord([text('=1;=2;3;-4')])).toBe(`"'=1;'=2;3;'-4"\r\n`);
    expect(csvRecord([text('a;b=c; d')])).toBe('"a;b=c; d"\r\n');
  });

  it('leaves no piece of a field beginning with a formula, whichever of those separators splits it', () => {
    const field = csvRecord([text('a;=1,+2\t-3|@4\u061B=5\u060C=6\n=7\r=8 "=9')]).slice(0, -2);
    for (const separator of [',', ';', '\t', '|', '\u061B', '\u060C', '\n', '\r'])
      for (const piece of field.split(separator).slice(1))
        expect(piece.replace(/^[ "]*/, '')).not.toMatch(/^[=+\-@]/);
  });
});
