/**
 * Forwarder factory version 3 at one address on every chain (docs/decisions/0028-one-address-every-chain.md):
 * deployed through the deterministic CREATE2 deployer with a fixed salt, its init code carrying the route table.
 * The same table gives the same factory address, implementation address and deposit addresses on every chain.
 */
import {
  type Address,
  encodeDeployData,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  type PublicClient,
  stringToHex,
} from 'viem';
import { forwarderFactoryV3Abi } from './contractAbis.ts';
import { holdsCode } from './contractCode.ts';
import { loadContracts } from './contracts.ts';
import type { DeployWalletClient } from './deployContracts.ts';

/**
 * The keyless CREATE2 deployer (github.com/Arachnid/deterministic-deployment-proxy): put on each chain by one
 * presigned transaction without a chain id, so it has the same address and code wherever it exists (Ethereum,
 * Polygon, Base, Arbitrum, Optimism, Avalanche and their testnets; anvil has it from its first block). Calldata:
 * salt ‖ init code; it answers the new contract's address.
 */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';

/** Fixed: another salt would be another factory address for the same table. */
export const FACTORY_V3_SALT: Hex = keccak256(stringToHex('paylink.ForwarderFactoryV3'));

/** One row of the factory's table (ForwarderFactoryV3.ChainRoute). */
export type ChainRoute = {
  chainId: number;
  /** Circle's CCTP domain of the chain; 7 (Polygon) marks the chain every burn mints on. */
  domain: number;
  usdc: Address;
  /** CCTP v2 TokenMessengerV2 of the chain. */
  tokenMessenger: Address;
  /** The most a fast burn may pay CCTP, in basis points of the amount (0: standard transfers only). */
  maxBurnFeeBps: number;
};

export type FactoryV3Addresses = { factory: Address; implementation: Address };

/** The factory's init code: its creation bytecode and the table as constructor argument. */
export async function factoryV3InitCode(routes: readonly ChainRoute[]): Promise<Hex> {
  const { ForwarderFactoryV3 } = await loadContracts();
  return encodeDeployData({
    abi: forwarderFactoryV3Abi,
    bytecode: ForwarderFactoryV3.bytecode,
    args: [routes.map(toStruct)],
  });
}

/** Where the factory for this table is (or will be) on any chain, and its implementation. Pure of the chain. */
export async function predictFactoryV3(routes: readonly ChainRoute[]): Promise<FactoryV3Addresses> {
  const factory = getContractAddress({
    opcode: 'CREATE2',
    from: CREATE2_DEPLOYER,
    salt: FACTORY_V3_SALT,
    bytecode: await factoryV3InitCode(routes),
  });
  return { factory, implementation: getContractAddress({ opcode: 'CREATE', from: factory, nonce: 1n }) };
}

export class DeterministicDeployerMissingError extends Error {
  override readonly name = 'DeterministicDeployerMissingError';
  constructor(chainId: number) {
    super(
      `chain ${chainId} has no deterministic deployer at ${CREATE2_DEPLOYER}: the forwarder factory cannot get the ` +
        'address it has on the other chains there',
    );
  }
}

/**
 * Deploys the factory for this table on the wallet's chain, unless it is there already (anyone may have
 * deployed it: it is the same contract whoever does). Idempotent; answers the same addresses on every chain.
 */
export async function deployFactoryV3(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  routes: readonly ChainRoute[],
): Promise<FactoryV3Addresses> {
  const predicted = await predictFactoryV3(routes);
  if (await holdsCode(publicClient, predicted.factory)) return predicted;
  if (!(await holdsCode(publicClient, CREATE2_DEPLOYER))) {
    throw new DeterministicDeployerMissingError(await publicClient.getChainId());
  }
  const data = `${FACTORY_V3_SALT}${(await factoryV3InitCode(routes)).slice(2)}` as Hex;
  const hash = await walletClient.sendTransaction({ to: CREATE2_DEPLOYER, data });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !(await holdsCode(publicClient, predicted.factory))) {
    throw new Error(`forwarder factory deployment ${hash} failed (status ${receipt.status})`);
  }
  return { factory: getAddress(predicted.factory), implementation: predicted.implementation };
}

function toStruct(route: ChainRoute) {
  return {
    chainId: BigInt(route.chainId),
    domain: route.domain,
    usdc: route.usdc,
    tokenMessenger: route.tokenMessenger,
    maxBurnFeeBps: route.maxBurnFeeBps,
  };
}
