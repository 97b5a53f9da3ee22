import { describe, expect, it } from 'vitest';
import { parsePaymentReference, paymentReference } from './paymentReference.ts';

describe('paymentReference', () => {
  it("writes the id's last 40 bits in Crockford base 32, in two groups of four", () => {
    expect(paymentReference('01890a5d-ac96-774b-bcce-000000000000')).toBe('PL-0000-0000');
    expect(paymentReference('01890a5d-ac96-774b-bcce-ffffffffffff')).toBe('PL-ZZZZ-ZZZZ');
    expect(paymentReference('01890a5d-ac96-774b-bcce-000123456789')).toBe(crockford(0x0123456789n));
  });

  it('differs for ids that differ in their last 40 bits only', () => {
    expect(paymentReference('01890a5d-ac96-774b-bcce-aa0000000001')).not.toBe(
      paymentReference('01890a5d-ac96-774b-bcce-aa0000000002'),
    );
  });

  it('refuses what is not a UUID', () => {
    expect(() => paymentReference('not-an-id')).toThrow();
  });
});

describe('parsePaymentReference', () => {
  it('reads what a person types: any case, without prefix or dashes, I L O as 1 1 0', () => {
    expect(parsePaymentReference('PL-7K2M-9QXD')).toBe('PL-7K2M-9QXD');
    expect(parsePaymentReference(' pl-7k2m-9qxd ')).toBe('PL-7K2M-9QXD');
    expect(parsePaymentReference('7K2M9QXD')).toBe('PL-7K2M-9QXD');
    expect(parsePaymentReference('PL 7K2M 9QXD')).toBe('PL-7K2M-9QXD');
    expect(parsePaymentReference('PL-OIL0-0000')).toBe('PL-0110-0000');
  });

  it('is undefined for what cannot be a reference', () => {
    expect(parsePaymentReference('PL-7K2M-9QX')).toBeUndefined();
    expect(parsePaymentReference('PL-7K2M-9QXU')).toBeUndefined();
    expect(parsePaymentReference('order-1')).toBeUndefined();
    expect(parsePaymentReference('')).toBeUndefined();
  });
});

/** An independent writing of a 40-bit number in Crockford base 32, by repeated division. */
function crockford(value: bigint): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let text = '';
  for (let v = value, i = 0; i < 8; i++, v /= 32n) text = alphabet[Number(v % 32n)] + text;
  return `PL-${text.slice(0, 4)}-${text.slice(4)}`;
}
