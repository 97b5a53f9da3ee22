/**
 * CCTP v2 messages as bytes: the header every message has and the body of a burn, laid out as Circle's MessageV2
 * and BurnMessageV2 (and src/contracts/CctpMessageV2.sol) write them, big-endian and packed. Pure.
 *
 * A burn's `MessageSent` event carries the message with the nonce, `finalityThresholdExecuted`, `feeExecuted` and
 * `expirationBlock` all zero; the attestation service fills them in and signs the result, which is what
 * `receiveMessage` on the destination takes (the attestation API's `message`, never the event's bytes).
 */
import { type Address, concat, getAddress, type Hex, numberToHex, pad, size, sliceHex } from 'viem';
import { CCTP_DOMAINS } from '../../domain/cctp.ts';

export { CCTP_DOMAINS, FINALITY_FAST, FINALITY_STANDARD } from '../../domain/cctp.ts';

/** The domain every burn mints on. */
export const POLYGON_DOMAIN = CCTP_DOMAINS.polygon;

export const MESSAGE_VERSION = 1;
export const BURN_MESSAGE_VERSION = 1;
const HEADER_LENGTH = 148;
const BURN_BODY_LENGTH = 228;

export type MessageV2 = {
  version: number;
  sourceDomain: number;
  destinationDomain: number;
  nonce: Hex;
  sender: Hex;
  recipient: Hex;
  destinationCaller: Hex;
  minFinalityThreshold: number;
  finalityThresholdExecuted: number;
  messageBody: Hex;
};

export type BurnMessageV2 = {
  version: number;
  burnToken: Hex;
  mintRecipient: Hex;
  amount: bigint;
  messageSender: Hex;
  maxFee: bigint;
  feeExecuted: bigint;
  expirationBlock: bigint;
  hookData: Hex;
};

export class CctpMessageError extends Error {
  override readonly name = 'CctpMessageError';
}

const u32 = (value: number): Hex => numberToHex(value, { size: 4 });
const u256 = (value: bigint): Hex => numberToHex(value, { size: 32 });

export function encodeMessageV2(message: MessageV2): Hex {
  return concat([
    u32(message.version),
    u32(message.sourceDomain),
    u32(message.destinationDomain),
    pad(message.nonce, { size: 32 }),
    pad(message.sender, { size: 32 }),
    pad(message.recipient, { size: 32 }),
    pad(message.destinationCaller, { size: 32 }),
    u32(message.minFinalityThreshold),
    u32(message.finalityThresholdExecuted),
    message.messageBody,
  ]);
}

export function decodeMessageV2(bytes: Hex): MessageV2 {
  if (size(bytes) < HEADER_LENGTH)
    throw new CctpMessageError(`a v2 message has at least ${HEADER_LENGTH} bytes`);
  const word = (at: number) => sliceHex(bytes, at, at + 32, { strict: true });
  const uint32 = (at: number) => Number.parseInt(sliceHex(bytes, at, at + 4, { strict: true }).slice(2), 16);
  return {
    version: uint32(0),
    sourceDomain: uint32(4),
    destinationDomain: uint32(8),
    nonce: word(12),
    sender: word(44),
    recipient: word(76),
    destinationCaller: word(108),
    minFinalityThreshold: uint32(140),
    finalityThresholdExecuted: uint32(144),
    messageBody: size(bytes) === HEADER_LENGTH ? '0x' : sliceHex(bytes, HEADER_LENGTH),
  };
}

export function encodeBurnMessageV2(body: BurnMessageV2): Hex {
  return concat([
    u32(body.version),
    pad(body.burnToken, { size: 32 }),
    pad(body.mintRecipient, { size: 32 }),
    u256(body.amount),
    pad(body.messageSender, { size: 32 }),
    u256(body.maxFee),
    u256(body.feeExecuted),
    u256(body.expirationBlock),
    body.hookData,
  ]);
}

export function decodeBurnMessageV2(bytes: Hex): BurnMessageV2 {
  if (size(bytes) < BURN_BODY_LENGTH) {
    throw new CctpMessageError(`a v2 burn message has at least ${BURN_BODY_LENGTH} bytes`);
  }
  const word = (at: number) => sliceHex(bytes, at, at + 32, { strict: true });
  return {
    version: Number.parseInt(sliceHex(bytes, 0, 4, { strict: true }).slice(2), 16),
    burnToken: word(4),
    mintRecipient: word(36),
    amount: BigInt(word(68)),
    messageSender: word(100),
    maxFee: BigInt(word(132)),
    feeExecuted: BigInt(word(164)),
    expirationBlock: BigInt(word(196)),
    hookData: size(bytes) === BURN_BODY_LENGTH ? '0x' : sliceHex(bytes, BURN_BODY_LENGTH),
  };
}

/** A 32-byte CCTP address field as the 20-byte address it holds (Circle's `bytes32ToAddress`). */
export function bytes32ToAddress(value: Hex): Address {
  return getAddress(sliceHex(pad(value, { size: 32 }), 12));
}

export function addressToBytes32(address: Address): Hex {
  return pad(address.toLowerCase() as Hex, { size: 32 });
}
