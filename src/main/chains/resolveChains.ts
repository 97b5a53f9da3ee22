import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import type { ChainToken } from '../../adapters/chain/depositPlanner.ts';
import { expectedFactoryV3, refuseOtherFactory } from '../../adapters/chain/routeTable.ts';
import {
  type ChainMode,
  type ChainSettings,
  type Config,
  ConfigError,
  chainsOfMode,
  isSourceChain,
  requireChainSetting,
  type SourceChainSettings,
  type TokenSetting,
  type VariablePrefix,
} from '../../config/index.ts';
import {
  SANDBOX_ACCOUNTS,
  type SandboxChain,
  sandboxAccount,
  sandboxPrivateKey,
  startSandboxChain,
} from '../../sandbox/chain.ts';
import {
  readSandboxCrossChain,
  type SandboxCrossChain,
  type SandboxCrossChainContracts,
  startSandboxCrossChain,
} from '../../sandbox/crossChain.ts';
import { homeForwarderVersion, modeHasSourceChains, sandboxFactory } from '../homeFactoryVersion.ts';
import type { HomeChain, SourceChain } from './model.ts';

/**
 * The chains this deployment takes payments on, one per chain id, in the order of `config.chains` (the live one
 * first). On `sandbox` the service starts its own anvil and contracts (unless their addresses are configured);
 * on `polygon` / `amoy` everything comes from configuration, and a missing setting stops the process naming it.
 * Where it stops, the chains already started are stopped first.
 *
 * A configured chain on the id of one already resolved is that chain itself, taking its mode's payments too:
 * one watcher and one settler per chain id, so a chain on that id with other contracts could never be watched.
 */
export async function resolveChains(config: Config, stateDir: string, logger: Logger): Promise<HomeChain[]> {
  await refuseFactoriesOutsideTheirTables(config);
  const resolved: HomeChain[] = [];
  try {
    for (const settings of config.chains) {
      if (settings.role === 'source') continue;
      const index = resolved.findIndex((chain) => chain.target.chainId === settings.chainId);
      const same = resolved[index];
      if (same) resolved[index] = { ...same, modes: [...same.modes, ...sharedMode(same, settings)] };
      else resolved.push(await resolveChain(settings, config, stateDir, logger));
    }
    return resolved.map((home) => withSources(home, config.chains, stateDir));
  } catch (error) {
    await stopChains(resolved);
    throw error;
  }
}

/**
 * The home chain with its source chains (one per chain id: the sandbox's two modes share theirs) and its CCTP
 * side. Its deposits are then version 3's, whose addresses are the same on all of them.
 */
function withSources(home: HomeChain, chains: readonly ChainSettings[], stateDir: string): HomeChain {
  const sandbox =
    home.sandboxCrossChain ??
    (home.settings.network === 'sandbox' ? readSandboxCrossChain(stateDir) : undefined);
  const sources: SourceChain[] = [];
  for (const settings of chains) {
    if (!isSourceChain(settings) || settings.homeChainId !== home.target.chainId) continue;
    if (sources.some((source) => source.settings.chainId === settings.chainId)) continue;
    sources.push(resolveSourceChain(settings, home, sandbox));
  }
  if (sources.length === 0) return home;
  const messageTransmitter = home.settings.cctp?.messageTransmitter ?? sandbox?.home.messageTransmitter;
  if (!messageTransmitter) {
    throw new ConfigError(
      `Invalid configuration:\n  ${home.settings.variablePrefix}MESSAGE_TRANSMITTER is required on ${home.settings.network} when other chains pay into it`,
    );
  }
  return {
    ...home,
    target: { ...home.target, forwarderVersion: 3 },
    cctp: { usdc: home.target.tokenAddress, messageTransmitter },
    sources,
  };
}

function resolveSourceChain(
  settings: SourceChainSettings,
  home: HomeChain,
  sandbox: SandboxCrossChainContracts | undefined,
): SourceChain {
  const prefix = settings.variablePrefix;
  const fromSandbox = settings.network === 'sandbox-2' ? sandbox?.second : undefined;
  const required = <T>(value: T | undefined, variable: string): T => {
    if (value === undefined)
      throw new ConfigError(
        `Invalid configuration:\n  ${prefix}${variable} is required on ${settings.network}`,
      );
    return value;
  };
  const usdc = required(settings.usdcAddress ?? fromSandbox?.usdc, 'USDC_ADDRESS');
  const cctp = required(settings.cctp, 'TOKEN_MESSENGER');
  return {
    settings,
    target: {
      chainId: settings.chainId,
      tokenAddress: usdc,
      // USDC alone pays on a source chain: it is the only token a forwarder there can burn to the home chain.
      acceptedTokens: [{ symbol: 'USDC', address: usdc, decimals: 6 }],
      noticedTokens: [],
      factoryAddress: home.target.factoryAddress,
      treasuryAddress: home.target.treasuryAddress,
      forwarderVersion: 3,
    },
    rpcUrls: requireChainSetting(settings, 'rpcUrls'),
    relayerKey:
      settings.relayerKey ??
      home.relayerKey ??
      (fromSandbox ? sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer) : undefined),
    gaslessRelayerKey: gaslessRelayerKey(settings),
    cctp: {
      domain: cctp.domain,
      tokenMessenger: required(cctp.tokenMessenger ?? fromSandbox?.tokenMessenger, 'TOKEN_MESSENGER'),
      messageTransmitter: required(
        cctp.messageTransmitter ?? fromSandbox?.messageTransmitter,
        'MESSAGE_TRANSMITTER',
      ),
      transferSpeed: cctp.transferSpeed,
      maxFeeBps: cctp.maxFeeBps,
      fastConfirmations: cctp.fastConfirmations,
    },
  };
}

/**
 * A mode with source chains has one factory, its route table's (decision 0032): a configured factory that is
 * not it would give deposit addresses that are not the same on the mode's chains. Checked before anything starts.
 */
async function refuseFactoriesOutsideTheirTables(config: Config): Promise<void> {
  for (const mode of ['live', 'test'] as const) {
    const chains = chainsOfMode(config.chains, mode);
    const [home] = chains;
    if (!home?.factoryAddress || !chains.some((chain) => chain.role === 'source')) continue;
    refuseOtherFactory(home, home.factoryAddress, await expectedFactoryV3(chains));
  }
}

/** Stops every chain the service started, the last resolved first. */
export async function stopChains(chains: readonly HomeChain[]): Promise<void> {
  for (const chain of [...chains].reverse()) await chain.stop();
}

/** The mode of `settings`, taken by the chain already resolved on its id, which must then be its USDC's too. */
function sharedMode(chain: HomeChain, settings: ChainSettings): ChainMode[] {
  const { usdcAddress } = settings;
  if (usdcAddress && usdcAddress.toLowerCase() !== chain.target.tokenAddress.toLowerCase()) {
    throw new ConfigError(
      `Invalid configuration:\n  ${settings.variablePrefix}USDC_ADDRESS must be the ${chain.settings.mode} USDC when the ${settings.mode} network is the ${chain.settings.mode} one (${settings.network})`,
    );
  }
  return [settings.mode];
}

async function resolveChain(
  chain: ChainSettings,
  config: Config,
  stateDir: string,
  logger: Logger,
): Promise<HomeChain> {
  const prefix = chain.variablePrefix;
  const { usdcAddress, factoryAddress } = chain;
  const identity = { settings: chain, modes: [chain.mode] };
  if (chain.network === 'sandbox' && !(usdcAddress && factoryAddress)) {
    const rpcUrl = chain.rpcUrls[0];
    if (!rpcUrl) throw new Error('no sandbox RPC URL');
    const sandbox = await startSandboxChain(rpcUrl, stateDir, logger);
    const crossChain = await startSecondSandboxChain(sandbox, chain, config, stateDir, logger).catch(
      async (error: unknown) => {
        await sandbox.stop();
        throw error;
      },
    );
    const tokenAddress = chain.usdcAddress ?? sandbox.usdc;
    const sandboxTokens: Readonly<Record<string, Address>> = {
      USDC: tokenAddress,
      'USDC.e': sandbox.bridgedUsdc,
    };
    // New payments use a version 3 factory (decision 0038): with the second chain its table's, whose address is
    // the same on both (withSources); else the table of this chain alone, deployed here.
    const factory = await sandboxFactory(sandbox, crossChain, chain, tokenAddress, config, logger).catch(
      async (error: unknown) => {
        await crossChain?.stop();
        await sandbox.stop();
        throw error;
      },
    );
    return {
      ...identity,
      target: {
        chainId: chain.chainId,
        tokenAddress,
        ...resolveTokens(chain, prefix, sandboxTokens),
        ...factory,
        treasuryAddress: chain.treasuryAddress ?? sandbox.treasury,
      },
      rpcUrls: chain.rpcUrls,
      relayerKey: chain.relayerKey ?? sandbox.relayerKey,
      gaslessRelayerKey: gaslessRelayerKey(chain),
      subscriptionCharger: chain.subscriptionCharger ?? sandbox.subscriptionCharger,
      cctp: undefined,
      sources: [],
      sandboxCrossChain: crossChain,
      stop: async () => {
        await crossChain?.stop();
        await sandbox.stop();
      },
    };
  }
  // Polygon and Amoy, or a sandbox whose contracts were deployed by someone else (several processes, tests).
  const sandbox = chain.network === 'sandbox';
  const tokenAddress = requireChainSetting(chain, 'usdcAddress');
  const rpcUrls = requireChainSetting(chain, 'rpcUrls');
  const factory = requireChainSetting(chain, 'factoryAddress');
  return {
    ...identity,
    target: {
      chainId: chain.chainId,
      tokenAddress,
      ...resolveTokens(chain, prefix, { USDC: tokenAddress }),
      factoryAddress: factory,
      ...(modeHasSourceChains(config, chain.mode)
        ? {}
        : {
            forwarderVersion: await homeForwarderVersion(
              config,
              chain,
              { factory, usdc: tokenAddress, rpcUrl: rpcUrls[0]! },
              logger,
            ),
          }),
      treasuryAddress: sandbox
        ? (chain.treasuryAddress ?? sandboxAccount(SANDBOX_ACCOUNTS.treasury).address)
        : requireChainSetting(chain, 'treasuryAddress'),
    },
    rpcUrls,
    relayerKey: chain.relayerKey ?? (sandbox ? sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer) : undefined),
    gaslessRelayerKey: gaslessRelayerKey(chain),
    cctp: undefined,
    sources: [],
    stop: async () => {},
  };
}

/**
 * The sandbox's second chain (`sandbox-2`), when a mode of this sandbox lists it: started with the first, its
 * CCTP and the version 3 factory deployed, and the local attestation service at Config.cctp's URL.
 */
async function startSecondSandboxChain(
  sandbox: SandboxChain,
  home: ChainSettings,
  config: Config,
  stateDir: string,
  logger: Logger,
): Promise<SandboxCrossChain | undefined> {
  const second = config.chains.find(
    (chain) => chain.network === 'sandbox-2' && chain.homeChainId === home.chainId,
  );
  if (!second || !config.cctp) return undefined;
  return startSandboxCrossChain(sandbox, home, second, config.cctp.attestationUrl, stateDir, logger);
}

/**
 * The operator's key (a source chain's is its mode's: sourceChains.ts), or on the sandbox's chains an account of
 * their own — the same on both, each chain counting its own nonces; none when PAYLINK_GASLESS is off.
 */
function gaslessRelayerKey(chain: ChainSettings): Hex | undefined {
  if (!chain.gasless.enabled) return undefined;
  const sandbox = chain.network === 'sandbox' || chain.network === 'sandbox-2';
  return (
    chain.gasless.relayerKey ?? (sandbox ? sandboxPrivateKey(SANDBOX_ACCOUNTS.gaslessRelayer) : undefined)
  );
}

/**
 * The accepted and noticed tokens with their addresses: from the configuration, or for the sandbox's own tokens
 * from what it deployed. A token whose address is known nowhere (the sandbox's USDC.e on a sandbox whose
 * contracts were deployed elsewhere) stops the process naming the setting.
 */
function resolveTokens(
  chain: ChainSettings,
  prefix: VariablePrefix,
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
