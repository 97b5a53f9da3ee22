import { describe, expect, it } from 'vitest';
import { PaylinkError } from './errors.ts';
import { parseRedirectUrl, withPaymentId } from './redirectUrl.ts';

const strict = { allowInsecure: false };
const problem = (input: string, options = strict) => {
  try {
    parseRedirectUrl('success_url', input, options);
  } catch (error) {
    return error instanceof PaylinkError ? error.details[0]?.message : String(error);
  }
  return undefined;
};

describe('parseRedirectUrl', () => {
  it('takes https, and http only where insecure URLs are allowed (the sandbox)', () => {
    expect(parseRedirectUrl('success_url', ' https://shop.example/a?b=1 ', strict)).toBe(
      'https://shop.example/a?b=1',
    );
    expect(problem('http://shop.example/')).toBe('must be an https URL');
    expect(parseRedirectUrl('success_url', 'http://localhost:8080/ok', { allowInsecure: true })).toBe(
      'http://localhost:8080/ok',
    );
    expect(problem('javascript:alert(1)', { allowInsecure: true })).toBe('must be an http(s) URL');
  });

  it('takes 2048 characters and refuses 2049', () => {
    const prefix = 'https://shop.example/?q=';
    const longest = prefix + 'a'.repeat(2048 - prefix.length);
    expect(parseRedirectUrl('success_url', longest, strict)).toBe(longest);
    expect(problem(`${longest}a`)).toBe('must be at most 2048 characters');
  });

  it('refuses text that is no URL, and credentials', () => {
    expect(problem('/thanks')).toBe('must be an absolute URL');
    expect(problem('https://ann:secret@shop.example/')).toBe('must not contain credentials');
  });
});

describe('withPaymentId', () => {
  const id = '0f8c2b1e-6a55-4c36-9a4e-2a1f5b7d9c10';
  it('adds the id after the merchant parameters, keeping the fragment', () => {
    expect(withPaymentId('https://shop.example/thanks', id)).toBe(
      `https://shop.example/thanks?payment_id=${id}`,
    );
    expect(withPaymentId('https://shop.example/t?order=7#top', id)).toBe(
      `https://shop.example/t?order=7&payment_id=${id}#top`,
    );
  });

  it("replaces a payment_id of the merchant's own: the page must read the payment's true id", () => {
    expect(withPaymentId('https://shop.example/t?payment_id=forged&a=1', id)).toBe(
      `https://shop.example/t?payment_id=${id}&a=1`,
    );
  });
});

describe('parseRedirectUrl at its bounds', () => {
  it('counts the length of the URL without the spaces around it', () => {
    const url = `https://shop.example/${'a'.repeat(2048 - 'https://shop.example/'.length)}`;
    expect(url).toHaveLength(2048);
    expect(problem(` ${url} `)).toBeUndefined();
    expect(problem(`${url}a`)).toBe('must be at most 2048 characters');
  });

  it('refuses a user name without a password, and a password without a user name', () => {
    expect(problem('https://ann@shop.example/done')).toBe('must not contain credentials');
    expect(problem('https://:secret@shop.example/done')).toBe('must not contain credentials');
  });
});
