/**
 * Deploys the contracts from the compiled artifacts: the factory once per chain (`paylink contracts deploy`,
 * or by the sandbox on its own chain), the test token only where there is no real USDC.
 */
import {
  type Account,
  type Address,
  type Chain,
  concat,
  encodeAbiParameters,
  getAddress,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { forwarderFactoryV2Abi } from './contractAbis.ts';
import { loadContracts } from './contracts.ts';

export type DeployWalletClient = WalletClient<Transport, Chain, Account>;

/**
 * The forwarder generations. 1: the first release, whose flush reverts when either transfer fails. 2: each
 * recipient is paid on its own and a failed share waits in the forwarder (PaymentForwarderV2.sol). New
 * deployments use the latest; payments keep the factory they were created with.
 */
export type ForwarderVersion = 1 | 2;
export const LATEST_FORWARDER_VERSION: ForwarderVersion = 2;

export type DeployFactoryReturnType = {
  factory: Address;
  implementation: Address;
  version: ForwarderVersion;
};

export async function deployFactory(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  version: ForwarderVersion = LATEST_FORWARDER_VERSION,
): Promise<DeployFactoryReturnType> {
  const contracts = await loadContracts();
  const artifact = version === 1 ? contracts.ForwarderFactory : contracts.ForwarderFactoryV2;
  const factory = await deploy(walletClient, publicClient, artifact.bytecode);
  // Both versions expose `implementation()` with the same signature.
  const implementation = await publicClient.readContract({
    address: factory,
    abi: forwarderFactoryV2Abi,
    functionName: 'implementation',
  });
  return { factory, implementation, version };
}

/** The sandbox's USDC, and its stand-in for bridged USDC.e. */
export const TEST_TOKENS = {
  USDC: { name: 'USD Coin (sandbox)', symbol: 'USDC' },
  'USDC.e': { name: 'USD Coin (PoS) (sandbox)', symbol: 'USDC.e' },
} as const;

export async function deployTestUsdc(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  token: { readonly name: string; readonly symbol: string } = TEST_TOKENS.USDC,
): Promise<Address> {
  const { TestUSDC } = await loadContracts();
  return deploy(
    walletClient,
    publicClient,
    TestUSDC.bytecode,
    encodeAbiParameters([{ type: 'string' }, { type: 'string' }], [token.name, token.symbol]),
  );
}

/** Deploys creation bytecode (with its encoded constructor arguments) by an ordinary CREATE, mined. */
export async function deploy(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  bytecode: Hex,
  constructorArgs: Hex = '0x',
): Promise<Address> {
  const hash = await walletClient.sendTransaction({ data: concat([bytecode, constructorArgs]) });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`contract deployment ${hash} failed (status ${receipt.status})`);
  }
  return getAddress(receipt.contractAddress);
}

/** Deploys pull renewal's charger (decision 0061): no constructor arguments, no owner, one per chain. */
export async function deploySubscriptionCharger(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
): Promise<Address> {
  const { SubscriptionCharger } = await loadContracts();
  return deploy(walletClient, publicClient, SubscriptionCharger.bytecode);
}
