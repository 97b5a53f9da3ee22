import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { extrasInputOf, parsePaymentExtras } from './paymentExtras.ts';

const STRICT = { allowInsecure: false };

describe('parsePaymentExtras', () => {
  it('keeps what was given, and none (null) for what was absent or blank', () => {
    expect(
      parsePaymentExtras(
        { successUrl: ' https://shop.example/ok ', cancelUrl: '  ', metadata: { a: 'b' } },
        STRICT,
      ),
    ).toEqual({ successUrl: 'https://shop.example/ok', cancelUrl: null, metadata: { a: 'b' } });
  });

  it('names every wrong field at once, in the order of the request', () => {
    const error = (() => {
      try {
        parsePaymentExtras({ successUrl: 'http://shop.example', cancelUrl: 'nope', metadata: 'x' }, STRICT);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details.map((d) => d.field)).toEqual([
      'success_url',
      'cancel_url',
      'metadata',
    ]);
  });

  it('takes plain http only where insecure URLs are allowed (the sandbox)', () => {
    expect(
      parsePaymentExtras({ successUrl: 'http://localhost/ok' }, { allowInsecure: true }).successUrl,
    ).toBe('http://localhost/ok');
  });
});

describe('extrasInputOf', () => {
  it("gives a link's extras to its payment as input, leaving out those it has none of", () => {
    expect(extrasInputOf({ successUrl: 'https://shop.example/ok', cancelUrl: null, metadata: null })).toEqual(
      {
        successUrl: 'https://shop.example/ok',
        cancelUrl: undefined,
        metadata: undefined,
      },
    );
  });
});
