import { parseAbiParameters } from 'viem';
import { EIP712_DOMAIN_TYPE } from './eip712Domain.ts';
import { formatUsdc } from './money.ts';
import { type Payment, paymentTerms } from './payment.ts';
import { type PaymentState, paidThresholdBaseUnits } from './paymentStatus.ts';

/**
 * Gasless payment: an EIP-3009 `transferWithAuthorization`, as native USDC implements it. The customer signs a
 * transfer of `value` from their address to the payment's deposit address, valid strictly between `validAfter`
 * and `validBefore` (unix seconds), named by a random 32-byte nonce; anyone may submit it and pay the gas. The
 * relayer spends gas on an authorization only once it is certain to pay this payment and nothing else: these
 * checks come before any signature recovery, storage or transaction.
 */
export interface TransferAuthorization {
  /** Lowercase addresses. */
  readonly from: string;
  readonly to: string;
  readonly valueBaseUnits: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  /** 0x and 64 lowercase hex digits. */
  readonly nonce: string;
}

/** EIP-712 types of a transfer authorization, as EIP-3009 defines them (what `eth_signTypedData_v4` is given). */
export const TRANSFER_AUTHORIZATION_TYPES = {
  EIP712Domain: EIP712_DOMAIN_TYPE,
  TransferWithAuthorization: parseAbiParameters(
    'address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce',
  ),
} as const;

/** The token's EIP-712 domain, read from the token itself: what the wallet is asked to sign over. */
export interface AuthorizationDomain {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
  /** The token; checksummed. */
  readonly verifyingContract: `0x${string}`;
}

/** What the authorization must fit: the payment as it stands now. */
export interface AuthorizationTerms {
  /** Lowercase. */
  readonly depositAddress: string;
  /** What a signed transfer must carry, exactly: `signedTransferDueBaseUnits` (0 when nothing is due). */
  readonly amountDueBaseUnits: bigint;
  /**
   * The least the relayer spends gas on (PAYLINK_MIN_AMOUNT, the least a link may ask for): a remainder below it
   * is sent from the customer's own wallet.
   */
  readonly minValueBaseUnits: bigint;
  readonly expiresAt: Date;
  readonly now: Date;
}

/**
 * An authorization may outlive the link by this much: a customer who signs in the link's last minute must still
 * be mined, and a transfer included in a block after expiry still counts (late). Beyond it the relayer could
 * be asked to submit, days later, a transfer to a payment nobody watches any more.
 */
export const VALID_BEFORE_AFTER_EXPIRY_S = 600n;
/** The least validity left when submitted: time for the relayer's transaction to be mined. */
export const MIN_VALIDITY_LEFT_S = 60n;

export type AuthorizationRefusal =
  | 'WRONG_RECIPIENT'
  | 'NOTHING_DUE'
  | 'ZERO_VALUE'
  | 'VALUE_ABOVE_DUE'
  | 'VALUE_BELOW_DUE'
  | 'DUE_BELOW_MINIMUM'
  | 'SELF_TRANSFER'
  | 'NOT_YET_VALID'
  | 'EXPIRES_TOO_SOON'
  | 'OUTLIVES_LINK';

/** Why each refusal is one: shown to the customer as it is. */
export const AUTHORIZATION_REFUSALS: Readonly<Record<AuthorizationRefusal, string>> = {
  WRONG_RECIPIENT: 'The authorization pays another address than this payment’s deposit address',
  NOTHING_DUE: 'Nothing is due on this payment any more',
  ZERO_VALUE: 'The authorization transfers nothing',
  VALUE_ABOVE_DUE: 'The authorization transfers more than is due on this payment',
  VALUE_BELOW_DUE: 'The authorization transfers less than is due on this payment',
  DUE_BELOW_MINIMUM: 'What is still due is below the least a signed transfer may carry',
  SELF_TRANSFER: 'The authorization is signed by the deposit address itself',
  NOT_YET_VALID: 'The authorization is not valid yet',
  EXPIRES_TOO_SOON: 'The authorization expires too soon to be mined',
  OUTLIVES_LINK: 'The authorization stays valid too long after the payment link expires',
};

/**
 * The refusal as the customer reads it; the refusals about the amount say what amount would be taken, in USDC
 * (what the wallet shows), so the page can tell the customer what to sign or to send from their wallet.
 */
export function describeRefusal(
  refusal: AuthorizationRefusal,
  terms: Pick<AuthorizationTerms, 'amountDueBaseUnits' | 'minValueBaseUnits'>,
): string {
  const due = `${formatUsdc(terms.amountDueBaseUnits)} USDC`;
  switch (refusal) {
    case 'VALUE_ABOVE_DUE':
    case 'VALUE_BELOW_DUE':
      return `${AUTHORIZATION_REFUSALS[refusal]}: sign a transfer of exactly ${due}`;
    case 'DUE_BELOW_MINIMUM':
      return `The ${due} still due is below ${formatUsdc(terms.minValueBaseUnits)} USDC, the least a signed transfer may carry: send it from your wallet`;
    default:
      return AUTHORIZATION_REFUSALS[refusal];
  }
}

/**
 * What a signed transfer must carry to settle the payment: the price less every transfer seen (final or not)
 * and every relayed authorization the watcher has not seen yet (`relayedUnseenBaseUnits`), so that a customer is
 * never made to pay twice. Nothing once that reaches the merchant's tolerated threshold: the payment is then
 * covered, and becomes paid once final. The tolerance never lowers what is asked: a signed transfer arrives to
 * the base unit, so there is no exchange fee to forgive.
 */
export function signedTransferDueBaseUnits(
  payment: Payment,
  state: PaymentState,
  relayedUnseenBaseUnits: bigint,
): bigint {
  if (state.status === 'paid') return 0n;
  const counted = state.amountSeenBaseUnits + relayedUnseenBaseUnits;
  if (counted >= paidThresholdBaseUnits(paymentTerms(payment))) return 0n;
  return payment.quote.usdcBaseUnits - counted;
}

/** The first reason this authorization cannot pay this payment, or undefined when it can. */
export function refuseAuthorization(
  authorization: TransferAuthorization,
  terms: AuthorizationTerms,
): AuthorizationRefusal | undefined {
  const nowS = BigInt(Math.floor(terms.now.getTime() / 1000));
  const expiresAtS = BigInt(Math.ceil(terms.expiresAt.getTime() / 1000));
  if (authorization.to !== terms.depositAddress) return 'WRONG_RECIPIENT';
  if (authorization.from === terms.depositAddress) return 'SELF_TRANSFER';
  if (terms.amountDueBaseUnits <= 0n) return 'NOTHING_DUE';
  if (authorization.valueBaseUnits <= 0n) return 'ZERO_VALUE';
  if (authorization.valueBaseUnits > terms.amountDueBaseUnits) return 'VALUE_ABOVE_DUE';
  // The relayer pays the same gas for 1 base unit as for the whole price: it sends only what settles the
  // payment, and only when that is worth the gas (decision 0012).
  if (terms.amountDueBaseUnits < terms.minValueBaseUnits) return 'DUE_BELOW_MINIMUM';
  if (authorization.valueBaseUnits < terms.amountDueBaseUnits) return 'VALUE_BELOW_DUE';
  // The token requires validAfter < block.timestamp < validBefore.
  if (authorization.validAfter >= nowS) return 'NOT_YET_VALID';
  if (authorization.validBefore < nowS + MIN_VALIDITY_LEFT_S) return 'EXPIRES_TOO_SOON';
  if (authorization.validBefore > expiresAtS + VALID_BEFORE_AFTER_EXPIRY_S) return 'OUTLIVES_LINK';
  return undefined;
}
