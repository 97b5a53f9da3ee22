/**
 * Deposit addresses, computed off-chain: a payment's address is known (and shown to the customer) before any
 * contract exists there. Pure: no client, no I/O.
 *
 * The address is the CREATE2 address of an OpenZeppelin clone with immutable args, deployed by the factory:
 *   salt      = keccak256(args)
 *   args      = abi.encode(address merchant, address treasury, uint16 feeBps, bytes16 paymentId)
 *   init code = 61 <uint16 len(args) + 0x2d> 3d81600a3d39f3 | 363d3d373d3d3d363d73 <implementation>
 *               5af43d82803e903d91602b57fd5bf3 | args
 * (`Clones._cloneCodeWithImmutableArgs` in @openzeppelin/contracts 5.x: a 10-byte constructor that returns the
 * 45-byte EIP-1167 proxy followed by the args, which the forwarder reads back from its own code.)
 *
 * Version 3 (decision 0031) deploys a bare 45-byte clone, with no args: each call passes the params, which the
 * forwarder checks against its own address. Same salt; the init code is the clone's alone, the same for every
 * payment of a factory:
 *   init code = 3d602d80600a3d3981f3363d3d373d3d3d363d73 <implementation> 5af43d82803e903d91602b57fd5bf3
 * (`Clones.cloneDeterministic`).
 */
import { type Address, bytesToHex, type Hex, hexToBytes, isAddress } from 'viem';
import { checksummed, keccak256Bytes } from './keccak.ts';

export type ForwarderParams = {
  merchant: Address;
  treasury: Address;
  /** Commission in basis points, 0..10000. */
  feeBps: number;
  /** The payment's UUID. */
  paymentId: string;
};

/** The params as the contracts take them (`ForwarderFactory.ForwarderParams`). */
export type ForwarderParamsStruct = { merchant: Address; treasury: Address; feeBps: number; paymentId: Hex };

/** Mirrors `ForwarderFactory.MAX_FEE_BPS`. */
export const MAX_FEE_BPS = 10_000;
/** Mirrors `ForwarderFactory.MAX_BATCH`: a longer flushBatch reverts. */
export const MAX_FLUSH_BATCH = 100;

const cloneProxyLength = 0x2d;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const zeroAddress = /^0x0{40}$/;

/** `0123…-…` → `0x0123…` (bytes16, lower case). */
export function uuidToBytes16(uuid: string): Hex {
  if (!uuidPattern.test(uuid)) throw new TypeError(`not a UUID: ${JSON.stringify(uuid)}`);
  return `0x${uuid.replaceAll('-', '').toLowerCase()}`;
}

/** The inverse of {@link uuidToBytes16}, for payment ids read back from events. */
export function bytes16ToUuid(value: Hex): string {
  if (!/^0x[0-9a-fA-F]{32}$/.test(value)) throw new TypeError(`not a bytes16: ${JSON.stringify(value)}`);
  const hex = value.slice(2).toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Validates like the factory does, so that an address is never shown for params the factory would refuse to
 * deploy (funds sent there could never be flushed).
 */
export function toForwarderStruct(params: ForwarderParams): ForwarderParamsStruct {
  for (const field of ['merchant', 'treasury'] as const) {
    const value = params[field];
    if (!isAddress(value, { strict: false }) || zeroAddress.test(value)) {
      throw new TypeError(`forwarder ${field} is not a non-zero address: ${JSON.stringify(value)}`);
    }
  }
  if (!Number.isInteger(params.feeBps) || params.feeBps < 0 || params.feeBps > MAX_FEE_BPS) {
    throw new RangeError(`forwarder feeBps must be an integer in 0..${MAX_FEE_BPS}, got ${params.feeBps}`);
  }
  return {
    merchant: params.merchant,
    treasury: params.treasury,
    feeBps: params.feeBps,
    paymentId: uuidToBytes16(params.paymentId),
  };
}

/** abi.encode(merchant, treasury, feeBps, paymentId): the clone's immutable args. */
export function forwarderArgs(params: ForwarderParams): Hex {
  return bytesToHex(forwarderArgBytes(toForwarderStruct(params)));
}

/** The length of the clone's immutable args: four static params, a 32-byte word each. */
const ARGS_LENGTH = 128;

/** The ABI encoding of the four static params: each in a 32-byte word, addresses and uint16 right-aligned. */
function forwarderArgBytes(p: ForwarderParamsStruct): Uint8Array {
  const args = Buffer.alloc(ARGS_LENGTH);
  writeForwarderArgs(p, args, 0);
  return args;
}

/**
 * Writes the encoding at `at` of `into`, whose padding there must be zero. The hex digits are written as
 * bytes in place; `toForwarderStruct` has checked they are hex digits of the right length.
 */
function writeForwarderArgs(p: ForwarderParamsStruct, into: Buffer, at: number): void {
  into.write(p.merchant.slice(2), at + 12, 'hex');
  into.write(p.treasury.slice(2), at + 44, 'hex');
  into[at + 94] = p.feeBps >> 8;
  into[at + 95] = p.feeBps & 0xff;
  into.write(p.paymentId.slice(2), at + 96, 'hex');
}

export function forwarderSalt(params: ForwarderParams): Hex {
  return bytesToHex(keccak256Bytes(forwarderArgBytes(toForwarderStruct(params))));
}

/**
 * Which forwarder a factory deploys. Versions 1 and 2 share the clone with immutable args (one formula); version 3
 * is the bare clone.
 */
export type ForwarderAddressVersion = 1 | 2 | 3;

export type PredictDepositAddressParameters = {
  factory: Address;
  implementation: Address;
  params: ForwarderParams;
  /** The factory's forwarder version; 2 when not said. */
  version?: ForwarderAddressVersion;
};

const initCodeHead = hexToBytes('0x3d81600a3d39f3363d3d373d3d3d363d73');
const initCodeTail = hexToBytes('0x5af43d82803e903d91602b57fd5bf3');

/**
 * CREATE2: keccak256(0xff ‖ factory ‖ salt ‖ keccak256(init code))[12:], checksummed. Computed on bytes with the
 * WebAssembly keccak: it is on the path of every create (bench/api.ts), where viem's hex-string version took a
 * fifth of the request. test/contracts/contracts.test.ts checks it against the factory on a real chain.
 */
export function predictDepositAddress({
  factory,
  implementation,
  params,
  version = 2,
}: PredictDepositAddressParameters): Address {
  return depositAddressPredictor(factory, implementation, version)(params);
}

/**
 * {@link predictDepositAddress} for one factory and implementation, with the init code's and the preimage's
 * fixed parts laid out once: per payment, two buffers are copied from them and the args written in place (a
 * new typed array costs about as much as a hash, and a create used to make a dozen).
 */
export function depositAddressPredictor(
  factory: Address,
  implementation: Address,
  version: ForwarderAddressVersion = 2,
): (params: ForwarderParams) => Address {
  if (version === 3) return bareCloneAddressPredictor(factory, implementation);
  const argsAt = 3 + initCodeHead.length + 20 + initCodeTail.length;
  const runtimeLength = ARGS_LENGTH + cloneProxyLength;
  const initCodeTemplate = Buffer.alloc(argsAt + ARGS_LENGTH);
  initCodeTemplate.set([0x61, runtimeLength >> 8, runtimeLength & 0xff]);
  let at = 3;
  for (const part of [initCodeHead, hexToBytes(implementation), initCodeTail]) {
    initCodeTemplate.set(part, at);
    at += part.length;
  }
  const preimageTemplate = Buffer.alloc(85);
  preimageTemplate[0] = 0xff;
  preimageTemplate.set(hexToBytes(factory), 1);
  return (params) => {
    const struct = toForwarderStruct(params);
    const initCode = Buffer.from(initCodeTemplate);
    writeForwarderArgs(struct, initCode, argsAt);
    const preimage = Buffer.from(preimageTemplate);
    preimage.set(keccak256Bytes(initCode.subarray(argsAt)), 21);
    preimage.set(keccak256Bytes(initCode), 53);
    return checksummed(keccak256Bytes(preimage).subarray(12));
  };
}

const bareCloneHead = hexToBytes('0x3d602d80600a3d3981f3363d3d373d3d3d363d73');

/**
 * Version 3: the CREATE2 address of the bare clone, salt keccak256(abi.encode(params)). The init code does not
 * depend on the payment, so its hash is taken once.
 */
function bareCloneAddressPredictor(
  factory: Address,
  implementation: Address,
): (params: ForwarderParams) => Address {
  const initCode = Buffer.concat([bareCloneHead, hexToBytes(implementation), initCodeTail]);
  const preimageTemplate = Buffer.alloc(85);
  preimageTemplate[0] = 0xff;
  preimageTemplate.set(hexToBytes(factory), 1);
  preimageTemplate.set(keccak256Bytes(initCode), 53);
  return (params) => {
    const preimage = Buffer.from(preimageTemplate);
    preimage.set(keccak256Bytes(forwarderArgBytes(toForwarderStruct(params))), 21);
    return checksummed(keccak256Bytes(preimage).subarray(12));
  };
}
