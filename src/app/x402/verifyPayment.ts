import type { KeyMode } from '../../domain/credentials.ts';
import type { Merchant } from '../../domain/merchant.ts';
import type { Payment } from '../../domain/payment.ts';
import type { TransferAuthorization } from '../../domain/transferAuthorization.ts';
import {
  caip2Of,
  refuseX402,
  X402_REFUSALS,
  X402_SCHEME,
  X402_VERSION,
  type X402Refusal,
  type X402Requirements,
} from '../../domain/x402.ts';
import type { AuthorizationChain } from '../gasless/ports.ts';
import type { DepositPlanner } from '../payments/ports.ts';
import type { X402Store } from './ports.ts';
import { type X402AccountDeps, x402AccountFor } from './x402Account.ts';

/** One chain the facilitator settles on: the gasless path's reads, its USDC, and who submits. */
export interface X402Chain
  extends Pick<AuthorizationChain, 'chainId' | 'domainOf' | 'recoverSigner' | 'isUsed' | 'refusalOf'> {
  /** The chain's USDC (checksummed): the asset paid there. */
  readonly tokenAddress: string;
  /** The gasless relayer's address on this chain: the `signers` of /supported. */
  readonly relayerAddress: string;
}

/**
 * Where a mode's calls are settled: its home chain and the source chains (CCTP) that have a gasless relayer. The
 * merchant's x402 address is planned on the home chain and is the same address on each of them (decision 0028,
 * a version 3 forwarder): what a call pays on a source chain is credited there and bridged home (decision 0029).
 */
export interface X402Mode {
  /** Plans the merchant's x402 address (the home chain's version 3 factory). */
  readonly planner: DepositPlanner;
  /** The home chain first, then the source chains; each with a gasless relayer. */
  readonly chains: readonly X402Chain[];
}

export interface X402Deps extends X402AccountDeps {
  readonly x402: X402Store;
  /** Each mode's chains; a mode without any settles nothing. */
  readonly modes: { readonly live?: X402Mode | undefined; readonly test?: X402Mode | undefined };
}

/** The chain of the mode whose CAIP-2 id is `network`, if the mode settles there. */
export function x402ChainOf(
  deps: Pick<X402Deps, 'modes'>,
  mode: KeyMode,
  network: string,
): X402Chain | undefined {
  return deps.modes[mode]?.chains.find((chain) => caip2Of(chain.chainId) === network);
}

/** A verify or settle request as the route parsed it (x402 `VerifyRequest` / `SettleRequest`). */
export interface X402Payment {
  readonly requirements: X402Requirements;
  /** `paymentPayload.accepted`. */
  readonly accepted: X402Requirements;
  readonly authorization: TransferAuthorization;
  readonly signature: string;
  /** `paymentPayload.resource`. */
  readonly resource?: { readonly url: string; readonly description?: string | undefined } | undefined;
}

/** Who asks: the merchant whose restricted key (scope `x402:settle`) called, in its key's mode. */
export interface X402Caller {
  readonly merchant: Merchant;
  readonly mode: KeyMode;
}

/** x402 `VerifyResponse`. */
export type X402Verdict =
  | { readonly isValid: true; readonly payer: string }
  | {
      readonly isValid: false;
      readonly invalidReason: string;
      readonly invalidMessage: string;
      readonly payer: string;
    };

/** The chain's own refusals, with x402's codes for them. */
type ChainRefusal =
  | 'invalid_exact_evm_eip3009_not_supported'
  | 'invalid_exact_evm_signature'
  | 'invalid_exact_evm_nonce_already_used'
  | 'invalid_exact_evm_insufficient_balance'
  | 'invalid_exact_evm_transaction_simulation_failed';

/**
 * x402 `SupportedResponse`: the exact scheme on the caller's mode's chain, and the relayer that submits. The kind's
 * `extra` tells the merchant what its routes advertise: `payTo` (its x402 address, made here on first use), the
 * `asset` and its EIP-712 `name` and `version`.
 */
export async function supportedKinds(deps: X402Deps, caller: X402Caller) {
  const mode = deps.modes[caller.mode];
  if (!mode || mode.chains.length === 0) return { kinds: [], extensions: [], signers: {} };
  const account = await x402AccountFor(deps, mode.planner, caller.merchant, caller.mode);
  const kinds = await Promise.all(
    mode.chains.map(async (chain) => {
      const domain = await chain.domainOf(chain.tokenAddress.toLowerCase());
      return {
        x402Version: X402_VERSION,
        scheme: X402_SCHEME,
        network: caip2Of(chain.chainId),
        extra: {
          // The same address on every chain (decision 0028).
          payTo: account.deposit!.depositAddress,
          asset: chain.tokenAddress,
          ...(domain ? { name: domain.name, version: domain.version } : {}),
        },
      };
    }),
  );
  const relayers = [...new Set(mode.chains.map((chain) => chain.relayerAddress))];
  return { kinds, extensions: [], signers: { 'eip155:*': relayers } };
}

/**
 * Whether the relayer could submit this authorization and have it pay these requirements to this merchant: the
 * checks without a chain (domain/x402.ts), then those of the gasless path, cheapest first — the token's EIP-712
 * domain, the signature, the nonce (the token's, and Paylink's own record of what was submitted), and a
 * simulation of the very call the relayer makes (balance, blacklist, pause). Nothing is written but the merchant's
 * x402 address on its first use, and no gas is spent.
 */
export async function verifyX402(
  deps: X402Deps,
  caller: X402Caller,
  request: X402Payment,
): Promise<{ verdict: X402Verdict; chain?: X402Chain; account?: Payment }> {
  const payer = request.authorization.from;
  const mode = deps.modes[caller.mode];
  const chain = x402ChainOf(deps, caller.mode, request.requirements.network);
  const refused = (reason: X402Refusal | ChainRefusal, message?: string) => ({
    verdict: {
      isValid: false as const,
      invalidReason: reason,
      invalidMessage: message ?? X402_REFUSALS[reason as X402Refusal],
      payer,
    },
  });
  if (!mode || !chain) return refused('invalid_exact_evm_network_mismatch');
  const account = await x402AccountFor(deps, mode.planner, caller.merchant, caller.mode);
  const refusal = refuseX402(request.requirements, request.accepted, request.authorization, chain.chainId, {
    payTo: account.deposit!.depositAddress.toLowerCase(),
    asset: chain.tokenAddress.toLowerCase(),
    now: deps.clock.now(),
  });
  if (refusal === 'invalid_exact_evm_recipient_mismatch')
    return refused(refusal, await recipientRefusal(deps, caller, request.requirements.payTo));
  if (refusal) return refused(refusal);

  const token = chain.tokenAddress.toLowerCase();
  const domain = await chain.domainOf(token);
  if (!domain)
    return refused(
      'invalid_exact_evm_eip3009_not_supported',
      'The token does not support EIP-3009 transfers',
    );
  const signer = await chain.recoverSigner(domain, request.authorization, request.signature);
  if (signer !== payer)
    return refused('invalid_exact_evm_signature', 'The signature does not match the authorization');
  const submitted = await deps.x402.findCall(chain.chainId, token, payer, request.authorization.nonce);
  if (submitted || (await chain.isUsed(token, payer, request.authorization.nonce)))
    return refused(
      'invalid_exact_evm_nonce_already_used',
      'This authorization was already used or submitted',
    );
  const tokenRefusal = await chain.refusalOf(token, request.authorization, request.signature);
  if (tokenRefusal !== undefined)
    return refused(
      /balance/i.test(tokenRefusal)
        ? 'invalid_exact_evm_insufficient_balance'
        : 'invalid_exact_evm_transaction_simulation_failed',
      `The token would refuse this transfer: ${tokenRefusal}`,
    );
  return { verdict: { isValid: true, payer }, chain, account };
}

/**
 * Why the payment's `payTo` is refused, in words: an earlier x402 address of the merchant's (made for a wallet or a
 * commission it has since changed) is named as such, so the resource server knows to ask /supported again.
 */
async function recipientRefusal(deps: X402Deps, caller: X402Caller, payTo: string): Promise<string> {
  const former = /^0x[0-9a-fA-F]{40}$/.test(payTo)
    ? await deps.x402.accountAt(caller.merchant.id, caller.mode, payTo)
    : undefined;
  if (!former) return X402_REFUSALS.invalid_exact_evm_recipient_mismatch;
  return 'The payTo is an earlier x402 address of this merchant, committed to a payout wallet or commission it no longer has: the merchant’s routes must advertise the current one (GET /supported, extra.payTo)';
}
