import fc from 'fast-check';
import { bytesToHex, getAddress, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { checksummed, keccak256Bytes } from './keccak.ts';

describe('keccak256Bytes', () => {
  it('equals viem’s keccak256 for any input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        expect(bytesToHex(keccak256Bytes(data))).toBe(keccak256(data));
      }),
    );
  });
});

describe('checksummed', () => {
  it('equals viem’s EIP-55 checksum for any address', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        expect(checksummed(bytes)).toBe(getAddress(bytesToHex(bytes)));
      }),
    );
  });

  it('matches the EIP-55 test vector', () => {
    const address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(checksummed(Buffer.from(address.slice(2), 'hex'))).toBe(address);
  });
});
