import { describe, expect, it } from 'vitest';
import {
  addressToBytes32,
  type BurnMessageV2,
  bytes32ToAddress,
  CctpMessageError,
  decodeBurnMessageV2,
  decodeMessageV2,
  encodeBurnMessageV2,
  encodeMessageV2,
  type MessageV2,
} from './cctpMessage.ts';

const burn: BurnMessageV2 = {
  version: 1,
  burnToken: addressToBytes32('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  mintRecipient: addressToBytes32('0x00000000000000000000000000000000000000aa'),
  amount: 2n ** 255n + 7n,
  messageSender: addressToBytes32('0x00000000000000000000000000000000000000bb'),
  maxFee: 2_000n,
  feeExecuted: 1_000n,
  expirationBlock: 392_817_466n,
  hookData: '0xdeadbeef',
};

const header: MessageV2 = {
  version: 1,
  sourceDomain: 6,
  destinationDomain: 7,
  nonce: `0x${'8e'.repeat(32)}`,
  sender: addressToBytes32('0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d'),
  recipient: addressToBytes32('0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d'),
  destinationCaller: `0x${'00'.repeat(32)}`,
  minFinalityThreshold: 1000,
  finalityThresholdExecuted: 1000,
  messageBody: '0x',
};

describe('CCTP v2 message codec', () => {
  it('round-trips a header and a burn body with hook data, at Circle’s sizes', () => {
    const body = encodeBurnMessageV2(burn);
    expect((body.length - 2) / 2).toBe(228 + 4);
    expect(decodeBurnMessageV2(body)).toEqual(burn);
    const message = encodeMessageV2({ ...header, messageBody: body });
    expect((message.length - 2) / 2).toBe(148 + 232);
    expect(decodeMessageV2(message)).toEqual({ ...header, messageBody: body });
    expect(decodeMessageV2(encodeMessageV2(header))).toEqual(header);
    // Without hook data: exactly 228 bytes, as every burn Paylink makes.
    const bare = encodeBurnMessageV2({ ...burn, hookData: '0x' });
    expect((bare.length - 2) / 2).toBe(228);
    expect(decodeBurnMessageV2(bare)).toEqual({ ...burn, hookData: '0x' });
  });

  it('refuses bytes too short to be a message or a burn', () => {
    expect(() => decodeMessageV2(`0x${'00'.repeat(147)}`)).toThrow(
      new CctpMessageError('a v2 message has at least 148 bytes'),
    );
    expect(() => decodeBurnMessageV2(`0x${'00'.repeat(227)}`)).toThrow(
      new CctpMessageError('a v2 burn message has at least 228 bytes'),
    );
  });

  it('reads a 32-byte address field as its low 20 bytes, checksummed', () => {
    expect(bytes32ToAddress(burn.burnToken)).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    expect(addressToBytes32('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')).toBe(
      '0x000000000000000000000000833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    );
  });
});
