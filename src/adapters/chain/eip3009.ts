/**
 * EIP-3009 `transferWithAuthorization` on a token, for gasless payments: whether the token supports it, with
 * the EIP-712 domain read from the token itself (never assumed), who signed an authorization, and the call that
 * submits one. Native USDC on Polygon and Amoy supports it; bridged USDC.e does not.
 */
import {
  BaseError,
  encodeFunctionData,
  getAddress,
  type Hex,
  hashDomain,
  isHex,
  type PublicClient,
  parseSignature,
  recoverTypedDataAddress,
  TransactionNotFoundError,
} from 'viem';
import type { AuthorizationChain } from '../../app/gasless/ports.ts';
import {
  type AuthorizationDomain,
  TRANSFER_AUTHORIZATION_TYPES,
  type TransferAuthorization,
} from '../../domain/transferAuthorization.ts';
import { ERC20_ERRORS, revertReasonOf } from './revertReason.ts';

const eip3009Abi = [
  ...ERC20_ERRORS,
  { type: 'function', name: 'name', inputs: [], outputs: [{ type: 'string' }], stateMutability: 'view' },
  { type: 'function', name: 'version', inputs: [], outputs: [{ type: 'string' }], stateMutability: 'view' },
  {
    type: 'function',
    name: 'DOMAIN_SEPARATOR',
    inputs: [],
    outputs: [{ type: 'bytes32' }],
    stateMutability: 'view',
  },
  {
    type: 'function',
    name: 'authorizationState',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
    ],
    outputs: [{ type: 'bool' }],
    stateMutability: 'view',
  },
  {
    type: 'function',
    name: 'transferWithAuthorization',
    // The signed message's fields, in its order, then the signature: one definition of what is signed.
    inputs: [
      ...TRANSFER_AUTHORIZATION_TYPES.TransferWithAuthorization,
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
    stateMutability: 'nonpayable',
  },
] as const;

/** The message types alone (viem derives EIP712Domain from the domain it is given). */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: TRANSFER_AUTHORIZATION_TYPES.TransferWithAuthorization,
} as const;

/**
 * The token's EIP-712 domain if it supports EIP-3009, else undefined. Supported means: it answers `name()`,
 * `version()`, `DOMAIN_SEPARATOR()` and `authorizationState(…)`, and its separator is the hash of exactly that
 * domain on this chain — so a signature made over the domain given to the wallet is one the token accepts.
 * A node that fails to answer throws (the caller decides what to do); a token that lacks a function does not.
 */
export async function readAuthorizationDomain(
  client: PublicClient,
  token: string,
  chainId: number,
): Promise<AuthorizationDomain | undefined> {
  const address = getAddress(token);
  const call = <T>(read: Promise<T>): Promise<T | undefined> =>
    read.catch((error: unknown) => {
      if (isMissingFunction(error)) return undefined;
      throw error;
    });
  const [name, version, separator, state] = await Promise.all([
    call(client.readContract({ address, abi: eip3009Abi, functionName: 'name' })),
    call(client.readContract({ address, abi: eip3009Abi, functionName: 'version' })),
    call(client.readContract({ address, abi: eip3009Abi, functionName: 'DOMAIN_SEPARATOR' })),
    call(
      client.readContract({
        address,
        abi: eip3009Abi,
        functionName: 'authorizationState',
        args: [address, `0x${'00'.repeat(32)}`],
      }),
    ),
  ]);
  if (name === undefined || version === undefined || separator === undefined || state === undefined)
    return undefined;
  const domain: AuthorizationDomain = { name, version, chainId, verifyingContract: address };
  const expected = hashDomain({
    domain: { ...domain, chainId: BigInt(chainId) },
    types: { EIP712Domain: TRANSFER_AUTHORIZATION_TYPES.EIP712Domain },
  });
  return expected.toLowerCase() === separator.toLowerCase() ? domain : undefined;
}

/** A reverted or empty answer means the token has no such function; anything else is the node's failure. */
function isMissingFunction(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return (
    error.walk((e) =>
      ['ContractFunctionRevertedError', 'ContractFunctionZeroDataError', 'AbiDecodingZeroDataError'].includes(
        (e as Error).name,
      ),
    ) !== null
  );
}

/** The address that signed this authorization over this domain (lowercase), or undefined for a malformed one. */
export async function recoverAuthorizer(
  domain: AuthorizationDomain,
  authorization: TransferAuthorization,
  signature: string,
): Promise<string | undefined> {
  if (!isHex(signature) || (signature.length !== 132 && signature.length !== 130)) return undefined;
  try {
    const signer = await recoverTypedDataAddress({
      domain,
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: getAddress(authorization.from),
        to: getAddress(authorization.to),
        value: authorization.valueBaseUnits,
        validAfter: authorization.validAfter,
        validBefore: authorization.validBefore,
        nonce: authorization.nonce as Hex,
      },
      signature: signature as Hex,
    });
    return signer.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Whether the token has already used (or seen canceled) this nonce of this authorizer. */
export function isAuthorizationUsed(
  client: PublicClient,
  token: string,
  authorizer: string,
  nonce: string,
): Promise<boolean> {
  return client.readContract({
    address: getAddress(token),
    abi: eip3009Abi,
    functionName: 'authorizationState',
    args: [getAddress(authorizer), nonce as Hex],
  });
}

/** The block a transaction is in, or undefined while the node knows it in none. */
export async function blockOfTransaction(client: PublicClient, txHash: string): Promise<bigint | undefined> {
  try {
    return (await client.getTransaction({ hash: txHash as Hex })).blockNumber ?? undefined;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return undefined;
    throw error;
  }
}

/**
 * The calldata that submits it: the (v, r, s) form, which every FiatToken version since 2 has (the `bytes`
 * form came only with 2.2).
 */
export function transferWithAuthorizationCall(authorization: TransferAuthorization, signature: string): Hex {
  const { r, s, v, yParity } = parseSignature(signature as Hex);
  return encodeFunctionData({
    abi: eip3009Abi,
    functionName: 'transferWithAuthorization',
    args: [
      getAddress(authorization.from),
      getAddress(authorization.to),
      authorization.valueBaseUnits,
      authorization.validAfter,
      authorization.validBefore,
      authorization.nonce as Hex,
      Number(v ?? BigInt(yParity + 27)),
      r,
      s,
    ],
  });
}

/**
 * The gasless path's reads on one chain. The domain is read once per token and kept (a token's name, version
 * and address do not change; the separator check would fail after an upgrade that changed them, and a restart
 * reads it again); the relayer's call is simulated from the relayer's own address.
 */
/**
 * How far back the token's `AuthorizationUsed` logs are searched for the transaction that used an authorization:
 * an authorization is relayed within minutes of being signed, and many nodes refuse log queries over wide ranges.
 */
export const USED_BY_LOOKBACK_BLOCKS = 2_000n;

const authorizationUsedEvent = {
  type: 'event',
  name: 'AuthorizationUsed',
  inputs: [
    { name: 'authorizer', type: 'address', indexed: true },
    { name: 'nonce', type: 'bytes32', indexed: true },
  ],
} as const;
const transferEvent = {
  type: 'event',
  name: 'Transfer',
  inputs: [
    { name: 'from', type: 'address', indexed: true },
    { name: 'to', type: 'address', indexed: true },
    { name: 'value', type: 'uint256', indexed: false },
  ],
} as const;

/**
 * The transaction (lowercase hash) in which the token used this authorization's nonce and, in the same
 * transaction, moved exactly its value from its authorizer to its recipient: whoever submitted it (another
 * relayer, a front-runner) paid what was signed. Undefined when no such transaction is found in the last
 * `USED_BY_LOOKBACK_BLOCKS` blocks (or the nonce was canceled rather than used).
 */
async function transactionThatUsed(
  client: PublicClient,
  token: string,
  authorization: TransferAuthorization,
): Promise<string | undefined> {
  // Not viem's cached number (up to its polling interval old): the transaction looked for may be in the block
  // just mined, and a look that stops before it finds nothing and fails a call that was paid.
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const logs = await client.getLogs({
    address: getAddress(token),
    event: authorizationUsedEvent,
    args: { authorizer: getAddress(authorization.from), nonce: authorization.nonce as Hex },
    fromBlock: latest > USED_BY_LOOKBACK_BLOCKS ? latest - USED_BY_LOOKBACK_BLOCKS : 0n,
    toBlock: latest,
  });
  for (const log of logs) {
    if (log.removed || !log.transactionHash) continue;
    const transfers = await client.getLogs({
      address: getAddress(token),
      event: transferEvent,
      args: { from: getAddress(authorization.from), to: getAddress(authorization.to) },
      blockHash: log.blockHash!,
    });
    const paid = transfers.some(
      (t) => t.transactionHash === log.transactionHash && t.args.value === authorization.valueBaseUnits,
    );
    if (paid) return log.transactionHash.toLowerCase();
  }
  return undefined;
}

export function authorizationChain(
  client: PublicClient,
  chainId: number,
  relayerAddress: string,
): AuthorizationChain {
  const domains = new Map<string, Promise<AuthorizationDomain | undefined>>();
  return {
    chainId,
    domainOf(token) {
      const key = token.toLowerCase();
      let domain = domains.get(key);
      if (!domain) {
        domain = readAuthorizationDomain(client, key, chainId);
        domains.set(key, domain);
        // A node that failed to answer is asked again next time.
        domain.catch(() => domains.delete(key));
      }
      return domain;
    },
    recoverSigner: recoverAuthorizer,
    callData: transferWithAuthorizationCall,
    isUsed: (token, authorizer, nonce) => isAuthorizationUsed(client, token, authorizer, nonce),
    blockOf: (txHash) => blockOfTransaction(client, txHash),
    usedBy: (token, authorization) => transactionThatUsed(client, token, authorization),
    async refusalOf(token, authorization, signature) {
      try {
        await client.call({
          account: getAddress(relayerAddress),
          to: getAddress(token),
          data: transferWithAuthorizationCall(authorization, signature),
        });
        return undefined;
      } catch (error) {
        const reason = revertReasonOf(error, eip3009Abi);
        if (reason === undefined) throw error;
        return reason;
      }
    },
  };
}
