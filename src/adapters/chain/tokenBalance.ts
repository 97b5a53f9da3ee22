import { erc20Abi, getAddress, type PublicClient } from 'viem';

/**
 * What `holder` holds of an ERC-20 token now, in base units: the bridge's read of a forwarder's USDC before a
 * burn, and an operator's sweep of a token sent by mistake.
 */
export function tokenBalanceOf(client: PublicClient, token: string, holder: string): Promise<bigint> {
  return client.readContract({
    address: getAddress(token),
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [getAddress(holder)],
  });
}
