import type { Logger } from 'pino';
import type { Hex } from 'viem';
import type { ChainTarget } from '../adapters/chain/depositPlanner.ts';
import { type Config, requireChainSetting } from '../config.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount, sandboxPrivateKey, startSandboxChain } from './sandboxChain.ts';

export interface ResolvedChain {
  readonly target: ChainTarget;
  readonly rpcUrls: readonly string[];
  readonly relayerKey: Hex | undefined;
  stop(): Promise<void>;
}

/**
 * The chain this deployment takes payments on. On `sandbox` the service starts its own anvil and contracts
 * (unless their addresses are configured); on `polygon` / `amoy` everything comes from configuration, and a
 * missing setting stops the process naming it.
 */
export async function resolveChain(config: Config, stateDir: string, logger: Logger): Promise<ResolvedChain> {
  const { usdcAddress, factoryAddress } = config.chain;
  if (config.network === 'sandbox' && !(usdcAddress && factoryAddress)) {
    const rpcUrl = config.chain.rpcUrls[0];
    if (!rpcUrl) throw new Error('no sandbox RPC URL');
    const sandbox = await startSandboxChain(rpcUrl, stateDir, logger);
    return {
      target: {
        chainId: config.chain.chainId,
        tokenAddress: config.chain.usdcAddress ?? sandbox.usdc,
        factoryAddress: config.chain.factoryAddress ?? sandbox.factory,
        treasuryAddress: config.chain.treasuryAddress ?? sandbox.treasury,
      },
      rpcUrls: config.chain.rpcUrls,
      relayerKey: config.chain.relayerKey ?? sandbox.relayerKey,
      stop: () => sandbox.stop(),
    };
  }
  // Polygon and Amoy, or a sandbox whose contracts were deployed by someone else (several processes, tests).
  const sandbox = config.network === 'sandbox';
  return {
    target: {
      chainId: config.chain.chainId,
      tokenAddress: requireChainSetting(config, 'usdcAddress', 'PAYLINK_USDC_ADDRESS'),
      factoryAddress: requireChainSetting(config, 'factoryAddress', 'PAYLINK_FACTORY_ADDRESS'),
      treasuryAddress: sandbox
        ? (config.chain.treasuryAddress ?? sandboxAccount(SANDBOX_ACCOUNTS.treasury).address)
        : requireChainSetting(config, 'treasuryAddress', 'PAYLINK_TREASURY_ADDRESS'),
    },
    rpcUrls: requireChainSetting(config, 'rpcUrls', 'PAYLINK_RPC_URL'),
    relayerKey:
      config.chain.relayerKey ?? (sandbox ? sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer) : undefined),
    stop: async () => {},
  };
}
