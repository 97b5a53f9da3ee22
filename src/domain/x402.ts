import { MIN_VALIDITY_LEFT_S, type TransferAuthorization } from './transferAuthorization.ts';

/**
 * The x402 facilitator's `exact` scheme on EVM (decision 0059): a payer signs an EIP-3009
 * `transferWithAuthorization` of exactly the price to the merchant's x402 deposit address, and the facilitator
 * submits it. These are the checks that need no chain, each named by the reason code of x402's own `exact` EVM
 * facilitator (`invalidReason` of its verify response), so a resource server reads Paylink's refusals as it
 * reads any facilitator's. The chain's checks (domain, signature, nonce, simulation) follow in app/x402.
 */

/** The one scheme answered: a signed transfer of exactly the price. */
export const X402_SCHEME = 'exact';
/** The protocol version of the request and response shapes (`@x402/core`'s types). */
export const X402_VERSION = 2;

/**
 * The least validity an authorization must have left: the gasless relayer's (60 s), since it is the relayer that
 * submits it and refuses one that would lapse before it is mined. x402's own facilitator asks only 6 s, but its
 * clients sign for `maxTimeoutSeconds` (300 s unless the resource server says otherwise), far beyond either.
 */
export const X402_MIN_VALIDITY_LEFT_S = MIN_VALIDITY_LEFT_S;

/** A CAIP-2 network id of an EVM chain: `eip155:<chain id>`. */
export function caip2Of(chainId: number): `eip155:${number}` {
  return `eip155:${chainId}`;
}

/** The chain id of `eip155:<decimal>`, or undefined for anything else (another namespace, a malformed id). */
export function chainIdOfCaip2(network: string): number | undefined {
  const match = /^eip155:([1-9][0-9]{0,15})$/.exec(network);
  if (!match) return undefined;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** What a resource server asks to be paid (x402 `PaymentRequirements`), with the amount in base units. */
export interface X402Requirements {
  readonly scheme: string;
  readonly network: string;
  /** The token, as given. */
  readonly asset: string;
  readonly amountBaseUnits: bigint;
  readonly payTo: string;
}

/** What the merchant's facilitator accepts on the requirements' chain. */
export interface X402Terms {
  /** The merchant's x402 deposit address on this chain, lowercase. */
  readonly payTo: string;
  /** The chain's USDC, lowercase. */
  readonly asset: string;
  readonly now: Date;
}

export type X402Refusal =
  | 'unsupported_scheme'
  | 'invalid_exact_evm_network_mismatch'
  | 'invalid_exact_evm_asset_mismatch'
  | 'invalid_exact_evm_recipient_mismatch'
  | 'invalid_exact_evm_payload_authorization_value_mismatch'
  | 'invalid_exact_evm_authorization_value'
  | 'invalid_exact_evm_payload_authorization_valid_after'
  | 'invalid_exact_evm_payload_authorization_valid_before'
  | 'invalid_exact_evm_self_transfer';

/** Each refusal in words, as `invalidMessage` carries it. */
export const X402_REFUSALS: Readonly<Record<X402Refusal, string>> = {
  unsupported_scheme: 'Only the exact scheme is settled here',
  invalid_exact_evm_network_mismatch:
    'The payment is for another network than the requirements, or for a network this facilitator does not serve',
  invalid_exact_evm_asset_mismatch: 'The requirements name another token than this network’s USDC',
  invalid_exact_evm_recipient_mismatch:
    'The payment is not to this merchant’s Paylink x402 address on this network',
  invalid_exact_evm_payload_authorization_value_mismatch:
    'The payment accepted other requirements than the ones it is verified against',
  invalid_exact_evm_authorization_value: 'The authorization transfers another amount than the price',
  invalid_exact_evm_payload_authorization_valid_after: 'The authorization is not valid yet',
  invalid_exact_evm_payload_authorization_valid_before:
    'The authorization expired or expires too soon to be mined',
  invalid_exact_evm_self_transfer: 'The authorization is signed by the receiving address itself',
};

/**
 * The first reason this authorization cannot pay these requirements for this merchant, or undefined. `accepted`
 * is what the payer's client says it accepted (`PaymentPayload.accepted`): it must be the requirements verified,
 * or a payer could sign against cheaper terms than the server then checks.
 */
export function refuseX402(
  requirements: X402Requirements,
  accepted: X402Requirements,
  authorization: TransferAuthorization,
  chainId: number,
  terms: X402Terms,
): X402Refusal | undefined {
  if (requirements.scheme !== X402_SCHEME || accepted.scheme !== X402_SCHEME) return 'unsupported_scheme';
  if (requirements.network !== caip2Of(chainId) || accepted.network !== requirements.network)
    return 'invalid_exact_evm_network_mismatch';
  if (requirements.asset.toLowerCase() !== terms.asset) return 'invalid_exact_evm_asset_mismatch';
  if (requirements.payTo.toLowerCase() !== terms.payTo || authorization.to !== terms.payTo)
    return 'invalid_exact_evm_recipient_mismatch';
  if (
    accepted.asset.toLowerCase() !== terms.asset ||
    accepted.payTo.toLowerCase() !== terms.payTo ||
    accepted.amountBaseUnits !== requirements.amountBaseUnits
  )
    return 'invalid_exact_evm_payload_authorization_value_mismatch';
  if (authorization.from === terms.payTo) return 'invalid_exact_evm_self_transfer';
  if (requirements.amountBaseUnits <= 0n || authorization.valueBaseUnits !== requirements.amountBaseUnits)
    return 'invalid_exact_evm_authorization_value';
  const nowS = BigInt(Math.floor(terms.now.getTime() / 1000));
  // The token requires validAfter < block.timestamp < validBefore.
  if (authorization.validAfter >= nowS) return 'invalid_exact_evm_payload_authorization_valid_after';
  if (authorization.validBefore < nowS + X402_MIN_VALIDITY_LEFT_S)
    return 'invalid_exact_evm_payload_authorization_valid_before';
  return undefined;
}
