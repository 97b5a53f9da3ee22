/**
 * Deploys the contracts from the compiled artifacts: the factory once per chain (`paylink contracts deploy`,
 * or by the sandbox on its own chain), the test token only where there is no real USDC.
 */
import {
  type Account,
  type Address,
  type Chain,
  erc20Abi,
  getAddress,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { loadContracts } from './contracts.ts';
import { forwarderFactoryAbi } from './forwarder.ts';

export type DeployWalletClient = WalletClient<Transport, Chain, Account>;

export type DeployFactoryReturnType = { factory: Address; implementation: Address };

/** ERC-20 plus the owner-only `mint` of `TestUSDC`. */
export const testUsdcAbi = [
  ...erc20Abi,
  {
    type: 'function',
    name: 'mint',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
    stateMutability: 'nonpayable',
  },
] as const;

export async function deployFactory(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
): Promise<DeployFactoryReturnType> {
  const { ForwarderFactory } = await loadContracts();
  const factory = await deploy(walletClient, publicClient, ForwarderFactory.bytecode);
  const implementation = await publicClient.readContract({
    address: factory,
    abi: forwarderFactoryAbi,
    functionName: 'implementation',
  });
  return { factory, implementation };
}

export async function deployTestUsdc(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
): Promise<Address> {
  const { TestUSDC } = await loadContracts();
  return deploy(walletClient, publicClient, TestUSDC.bytecode);
}

async function deploy(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  bytecode: Hex,
): Promise<Address> {
  // Neither constructor takes arguments, so the bytecode alone is the deployment data.
  const hash = await walletClient.deployContract({ abi: [], bytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`contract deployment ${hash} failed (status ${receipt.status})`);
  }
  return getAddress(receipt.contractAddress);
}
