import { getAddress, type PublicClient } from 'viem';

/** Whether the address holds code on the chain (a contract, a smart-contract wallet), not an ordinary account. */
export async function holdsCode(client: Pick<PublicClient, 'getCode'>, address: string): Promise<boolean> {
  const code = await client.getCode({ address: getAddress(address) });
  return code !== undefined && code !== '0x';
}
