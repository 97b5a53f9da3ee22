import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import type { ChainTarget, ChainToken } from '../adapters/chain/depositPlanner.ts';
import {
  type ChainConfig,
  type Config,
  ConfigError,
  requireChainSetting,
  type TokenSetting,
} from '../config.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount, sandboxPrivateKey, startSandboxChain } from './sandboxChain.ts';

export interface ResolvedChain {
  readonly target: ChainTarget;
  readonly rpcUrls: readonly string[];
  readonly relayerKey: Hex | undefined;
  /** The gasless relayer's key where gasless payment is offered (decision 0012), else undefined. */
  readonly gaslessRelayerKey: Hex | undefined;
  stop(): Promise<void>;
}

/**
 * The chain this deployment takes payments on. On `sandbox` the service starts its own anvil and contracts
 * (unless their addresses are configured); on `polygon` / `amoy` everything comes from configuration, and a
 * missing setting stops the process naming it.
 */
export async function resolveChain(config: Config, stateDir: string, logger: Logger): Promise<ResolvedChain> {
  return resolveChainOf(config, config.chain, 'PAYLINK_', stateDir, logger);
}

/**
 * The chain of test-mode payments, resolved by the same rules as the live one (PAYLINK_TEST_* settings), or
 * undefined when test mode is off. On the live chain's id it is the live chain itself: one watcher and one
 * settler per chain id, so a test chain on that id with other contracts could never be watched.
 */
export async function resolveTestChain(
  config: Config,
  live: ResolvedChain,
  stateDir: string,
  logger: Logger,
): Promise<ResolvedChain | undefined> {
  const test = config.testChain;
  if (!test) return undefined;
  if (test.chainId === live.target.chainId) {
    if (test.usdcAddress && test.usdcAddress.toLowerCase() !== live.target.tokenAddress.toLowerCase()) {
      throw new ConfigError(
        `Invalid configuration:\n  PAYLINK_TEST_USDC_ADDRESS must be the live USDC when the test network is the live one (${test.network})`,
      );
    }
    // Stopped once, by the live chain's owner.
    return { ...live, stop: async () => {} };
  }
  return resolveChainOf(config, test, 'PAYLINK_TEST_', stateDir, logger);
}

async function resolveChainOf(
  config: Config,
  chain: ChainConfig,
  prefix: 'PAYLINK_' | 'PAYLINK_TEST_',
  stateDir: string,
  logger: Logger,
): Promise<ResolvedChain> {
  const { usdcAddress, factoryAddress } = chain;
  if (chain.network === 'sandbox' && !(usdcAddress && factoryAddress)) {
    const rpcUrl = chain.rpcUrls[0];
    if (!rpcUrl) throw new Error('no sandbox RPC URL');
    const sandbox = await startSandboxChain(rpcUrl, stateDir, logger);
    const tokenAddress = chain.usdcAddress ?? sandbox.usdc;
    const sandboxTokens: Readonly<Record<string, Address>> = {
      USDC: tokenAddress,
      'USDC.e': sandbox.bridgedUsdc,
    };
    return {
      target: {
        chainId: chain.chainId,
        tokenAddress,
        ...resolveTokens(chain, prefix, sandboxTokens),
        factoryAddress: chain.factoryAddress ?? sandbox.factory,
        treasuryAddress: chain.treasuryAddress ?? sandbox.treasury,
      },
      rpcUrls: chain.rpcUrls,
      relayerKey: chain.relayerKey ?? sandbox.relayerKey,
      gaslessRelayerKey: gaslessRelayerKey(chain),
      stop: () => sandbox.stop(),
    };
  }
  // Polygon and Amoy, or a sandbox whose contracts were deployed by someone else (several processes, tests).
  const sandbox = chain.network === 'sandbox';
  const tokenAddress = requireChainSetting(config, 'usdcAddress', `${prefix}USDC_ADDRESS`, chain);
  return {
    target: {
      chainId: chain.chainId,
      tokenAddress,
      ...resolveTokens(chain, prefix, { USDC: tokenAddress }),
      factoryAddress: requireChainSetting(config, 'factoryAddress', `${prefix}FACTORY_ADDRESS`, chain),
      treasuryAddress: sandbox
        ? (chain.treasuryAddress ?? sandboxAccount(SANDBOX_ACCOUNTS.treasury).address)
        : requireChainSetting(config, 'treasuryAddress', `${prefix}TREASURY_ADDRESS`, chain),
    },
    rpcUrls: requireChainSetting(config, 'rpcUrls', `${prefix}RPC_URL`, chain),
    relayerKey: chain.relayerKey ?? (sandbox ? sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer) : undefined),
    gaslessRelayerKey: gaslessRelayerKey(chain),
    stop: async () => {},
  };
}

/** The operator's key, or on the sandbox an account of its own; none when PAYLINK_GASLESS is off. */
function gaslessRelayerKey(chain: ChainConfig): Hex | undefined {
  if (!chain.gasless.enabled) return undefined;
  return (
    chain.gasless.relayerKey ??
    (chain.network === 'sandbox' ? sandboxPrivateKey(SANDBOX_ACCOUNTS.gaslessRelayer) : undefined)
  );
}

/**
 * The accepted and noticed tokens with their addresses: from the configuration, or for the sandbox's own tokens
 * from what it deployed. A token whose address is known nowhere (the sandbox's USDC.e on a sandbox whose
 * contracts were deployed elsewhere) stops the process naming the setting.
 */
function resolveTokens(
  chain: ChainConfig,
  prefix: 'PAYLINK_' | 'PAYLINK_TEST_',
  known: Readonly<Record<string, Address>>,
): { acceptedTokens: ChainToken[]; noticedTokens: ChainToken[] } {
  const resolve =
    (variable: string) =>
    (token: TokenSetting): ChainToken => {
      const address = token.symbol === 'USDC' ? known.USDC : (token.address ?? known[token.symbol]);
      if (address === undefined) {
        throw new ConfigError(
          `Invalid configuration:\n  ${variable}: ${token.symbol} has no address on this chain; give it as ${token.symbol}:0xaddress`,
        );
      }
      return { symbol: token.symbol, address, decimals: token.decimals };
    };
  // Noticed tokens nobody can locate are dropped rather than fatal: they only ever help report a mistake.
  const noticed = chain.noticedTokens.filter((t) => t.address !== undefined || known[t.symbol] !== undefined);
  return {
    acceptedTokens: chain.acceptedTokens.map(resolve(`${prefix}ACCEPTED_TOKENS`)),
    noticedTokens: noticed.map(resolve(`${prefix}NOTICED_TOKENS`)),
  };
}
