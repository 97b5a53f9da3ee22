import { createKeccak } from 'hash-wasm';
import type { Address } from 'viem';

/**
 * keccak-256 in WebAssembly (hash-wasm), much faster than the JavaScript one viem uses (docs/performance.md),
 * and every payment created needs four — its deposit address is on the request's path.
 * hash-wasm builds the hasher asynchronously, once, when this module loads; it is used synchronously after.
 */
const hasher = await createKeccak(256);

export function keccak256Bytes(data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}

const LOWER_A = 0x61;
const CASE_BIT = 0x20;

/**
 * EIP-55: a hex digit is upper-cased where the keccak of the lower-case address has a nibble ≥ 8. viem's
 * `getAddress` does the same with its slower keccak and a cache that a fresh deposit address always misses.
 * Worked on the digits' bytes: a string built a character at a time cost more than the hash (bench/api.ts).
 */
export function checksummed(address: Uint8Array): Address {
  const digits = Buffer.from(
    Buffer.from(address.buffer, address.byteOffset, address.byteLength).toString('hex'),
  );
  // The lower-case digits are ASCII, so their UTF-8 (what the hasher takes of a string) is the digits' bytes.
  const hash = keccak256Bytes(digits);
  for (let i = 0; i < digits.length; i += 1) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    if (nibble >= 8 && digits[i]! >= LOWER_A) digits[i] = digits[i]! ^ CASE_BIT;
  }
  return `0x${digits.toString('latin1')}`;
}
