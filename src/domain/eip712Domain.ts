import { parseAbiParameters } from 'viem';

/**
 * EIP-712's `EIP712Domain` for a domain of name, version, chain id and verifying contract: the one USDC signs
 * its authorizations and permits under, and our SubscriptionCharger its mandates.
 */
export const EIP712_DOMAIN_TYPE = parseAbiParameters(
  'string name, string version, uint256 chainId, address verifyingContract',
);
