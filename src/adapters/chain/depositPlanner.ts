import { type Address, getAddress, getContractAddress } from 'viem';
import type { DepositPlanner } from '../../app/payments/ports.ts';
import { depositAddressPredictor, type ForwarderAddressVersion } from './forwarder.ts';

/** A token the watcher reads on a chain, with its address known. */
export interface ChainToken {
  readonly symbol: string;
  readonly address: Address;
  readonly decimals: number;
}

export interface ChainTarget {
  readonly chainId: number;
  /** USDC: the token a payment asks for (the first accepted token). */
  readonly tokenAddress: Address;
  /** Every token that pays, USDC first (6 decimals each). */
  readonly acceptedTokens: readonly ChainToken[];
  /** Tokens recorded when sent to a payment but not counted. */
  readonly noticedTokens: readonly ChainToken[];
  readonly factoryAddress: Address;
  readonly treasuryAddress: Address;
}

/**
 * The ForwarderFactory creates its PaymentForwarder implementation in its constructor, the contract's first
 * CREATE (a contract's nonce starts at 1, EIP-161), so the implementation address follows from the factory's
 * alone and the API can compute deposit addresses without asking the chain.
 */
export function forwarderImplementationOf(factory: Address): Address {
  return getContractAddress({ from: factory, nonce: 1n });
}

/**
 * What a deposit address is derived from: the chain, its USDC, its factory (and its forwarder version: 2 when not
 * said; version 3's bare clone has another address formula) and the treasury.
 */
export type DepositTarget = Pick<
  ChainTarget,
  'chainId' | 'tokenAddress' | 'factoryAddress' | 'treasuryAddress'
> & { readonly forwarderVersion?: ForwarderAddressVersion };

export function depositPlanner(target: DepositTarget): DepositPlanner {
  const implementation = forwarderImplementationOf(target.factoryAddress);
  // Checksummed once: they are the same for every payment on this chain.
  const chain = {
    chainId: target.chainId,
    tokenAddress: getAddress(target.tokenAddress),
    factoryAddress: getAddress(target.factoryAddress),
    treasuryAddress: getAddress(target.treasuryAddress),
  };
  const predictDepositAddress = depositAddressPredictor(
    chain.factoryAddress,
    implementation,
    target.forwarderVersion ?? 2,
  );
  return {
    plan({ paymentId, merchantWallet, commissionBps, treasury }) {
      const treasuryAddress = treasury === undefined ? chain.treasuryAddress : getAddress(treasury);
      const depositAddress = predictDepositAddress({
        merchant: getAddress(merchantWallet),
        treasury: treasuryAddress,
        feeBps: commissionBps,
        paymentId,
      });
      return { ...chain, treasuryAddress, depositAddress };
    },
    chainId: chain.chainId,
    tokenAddress: chain.tokenAddress,
    contracts: [chain.tokenAddress, chain.factoryAddress, getAddress(implementation)],
  };
}
