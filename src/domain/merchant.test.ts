import { describe, expect, it } from 'vitest';
import { testMerchant } from '../../test/fakes/merchantFixture.ts';
import {
  type Merchant,
  missingPaymentConfiguration,
  parseMerchantName,
  parseWalletAddress,
} from './merchant.ts';

const merchant = (walletAddress: string | null, webhookUrl: string | null): Merchant =>
  testMerchant({ walletAddress, webhookUrl });

const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('missingPaymentConfiguration', () => {
  it('lists what a merchant still lacks, in order', () => {
    expect(missingPaymentConfiguration(merchant(null, null))).toStrictEqual([
      'wallet address',
      'webhook URL',
    ]);
    expect(missingPaymentConfiguration(merchant(WALLET, null))).toStrictEqual(['webhook URL']);
    expect(missingPaymentConfiguration(merchant(null, 'https://a.example'))).toStrictEqual([
      'wallet address',
    ]);
    expect(missingPaymentConfiguration(merchant(WALLET, 'https://a.example'))).toStrictEqual([]);
  });
});

describe('parseWalletAddress', () => {
  it('returns the address checksummed, spaces around it ignored', () => {
    expect(parseWalletAddress('wallet', ` ${WALLET.toLowerCase()} `)).toBe(WALLET);
    expect(parseWalletAddress('wallet', WALLET)).toBe(WALLET);
  });

  it('refuses non-addresses, a wrong checksum and the zero address', () => {
    const bad = 'wallet: must be a 0x-prefixed EVM address';
    expect(() => parseWalletAddress('wallet', 'not an address')).toThrow(bad);
    expect(() => parseWalletAddress('wallet', WALLET.slice(2))).toThrow(bad);
    // Mixed case with one letter's case flipped: a checksum typo, not an address.
    expect(() => parseWalletAddress('wallet', WALLET.replace('aAeb', 'aaeb'))).toThrow(bad);
    expect(() => parseWalletAddress('wallet', `0x${'0'.repeat(40)}`)).toThrow(
      'wallet: must not be the zero address',
    );
    expect(parseWalletAddress('wallet', `0x${'0'.repeat(39)}1`)).toBe(`0x${'0'.repeat(39)}1`);
  });
});

describe('parseMerchantName', () => {
  it('trims, and takes 1 to 200 characters', () => {
    expect(parseMerchantName('name', '  Shop  ')).toBe('Shop');
    expect(parseMerchantName('name', 'x'.repeat(200))).toBe('x'.repeat(200));
    expect(() => parseMerchantName('name', '   ')).toThrow('name: must be 1 to 200 characters');
    expect(() => parseMerchantName('name', 'x'.repeat(201))).toThrow('name: must be 1 to 200 characters');
    expect(() => parseMerchantName('name', 'Shop\u0007')).toThrow(
      'name: must not contain control characters',
    );
  });
});
