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

/** The keyless account that signed the deployer's creation, and that transaction (no chain id: valid anywhere). */
const CREATE2_DEPLOYER_SIGNER: Address = '0x3fAB184622Dc19b6109349B94811493BF2a45362';
const CREATE2_DEPLOYER_TRANSACTION: Hex =
  '0xf8a58085174876e800830186a08080b853604580600e600039806000f350fe7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf31ba02222222222222222222222222222222222222222222222222222222222222222a02222222222222222222222222222222222222222222222222222222222222222';
/** Its gas limit times its gas price (100,000 × 100 gwei): what the signer must hold. */
const CREATE2_DEPLOYER_COST = 10_000_000_000_000_000n;

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
  constructor(chainId: number, cause?: unknown) {
    super(
      `chain ${chainId} has no deterministic deployer at ${CREATE2_DEPLOYER} and refused its presigned ` +
        'deployment: the forwarder factory cannot get the address it has on the other chains there',
      { cause },
    );
  }
}

/**
 * Deploys the factory for this table on the wallet's chain, unless it is there already (anyone may have
 * deployed it: it is the same contract whoever does), installing the deterministic deployer first where a chain
 * lacks it. Idempotent; answers the same addresses on every chain.
 */
export async function deployFactoryV3(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  routes: readonly ChainRoute[],
): Promise<FactoryV3Addresses> {
  const predicted = await predictFactoryV3(routes);
  if (await holdsCode(publicClient, predicted.factory)) return predicted;
  if (!(await holdsCode(publicClient, CREATE2_DEPLOYER))) {
    await installDeterministicDeployer(walletClient, publicClient);
  }
  const data = `${FACTORY_V3_SALT}${(await factoryV3InitCode(routes)).slice(2)}` as Hex;
  const hash = await walletClient.sendTransaction({ to: CREATE2_DEPLOYER, data });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !(await holdsCode(publicClient, predicted.factory))) {
    throw new Error(`forwarder factory deployment ${hash} failed (status ${receipt.status})`);
  }
  return { factory: getAddress(predicted.factory), implementation: predicted.implementation };
}

/**
 * Puts the deterministic deployer on a chain that lacks it, the only way anyone can: fund its keyless signer and
 * broadcast the one presigned transaction. A chain that refuses transactions without a chain id (EIP-155 only)
 * cannot have it, nor the factory.
 */
export async function installDeterministicDeployer(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
): Promise<void> {
  const chainId = await publicClient.getChainId();
  const balance = await publicClient.getBalance({ address: CREATE2_DEPLOYER_SIGNER });
  if (balance < CREATE2_DEPLOYER_COST) {
    const hash = await walletClient.sendTransaction({
      to: CREATE2_DEPLOYER_SIGNER,
      value: CREATE2_DEPLOYER_COST - balance,
    });
    await publicClient.waitForTransactionReceipt({ hash });
  }
  try {
    const hash = await publicClient.request({
      method: 'eth_sendRawTransaction',
      params: [CREATE2_DEPLOYER_TRANSACTION],
    });
    await publicClient.waitForTransactionReceipt({ hash });
  } catch (error) {
    throw new DeterministicDeployerMissingError(chainId, error);
  }
  if (!(await holdsCode(publicClient, CREATE2_DEPLOYER)))
    throw new DeterministicDeployerMissingError(chainId);
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
