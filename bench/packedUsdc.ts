import { type Address, encodeAbiParameters, encodeFunctionData, type PublicClient } from 'viem';
import { testPackedUsdcAbi } from '../src/adapters/chain/contractAbis.ts';
import { loadContracts } from '../src/adapters/chain/contracts.ts';
import { type DeployWalletClient, deploy } from '../src/adapters/chain/deployContracts.ts';

/**
 * The benches' USDC with the cost profile of Circle's native USDC (FiatToken v2.2 behind FiatTokenProxy): the
 * TestPackedUSDC logic (balance and blacklist flag in one word) behind TestTokenProxy (two slot reads and a
 * delegatecall on every call), owned by `owner`'s account, the proxy administered by `admin` (who, as on
 * FiatTokenProxy, cannot use the token through it). Its ABI is TestUSDC's for what the benches call.
 */
export async function deployPackedUsdc(
  owner: DeployWalletClient,
  publicClient: PublicClient,
  admin: Address,
): Promise<Address> {
  const { TestPackedUSDC, TestTokenProxy } = await loadContracts();
  const implementation = await deploy(owner, publicClient, TestPackedUSDC.bytecode);
  const initialize = encodeFunctionData({
    abi: testPackedUsdcAbi,
    functionName: 'initialize',
    args: ['USD Coin (bench)', 'USDC', owner.account.address],
  });
  return deploy(
    owner,
    publicClient,
    TestTokenProxy.bytecode,
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'bytes' }],
      [implementation, admin, initialize],
    ),
  );
}
