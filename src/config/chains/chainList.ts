import type { Address } from 'viem';
import { z } from 'zod';
import { ConfigError } from '../configError.ts';
import {
  address,
  blockNumber,
  duration,
  finality,
  nativeToWei,
  privateKey,
  rpcUrlList,
  url,
  usdcAmount,
} from '../fields.ts';
import { DEFAULT_FAST_CONFIRMATIONS } from './cctp.ts';
import { type ChainNetwork, type HomeNetwork, NETWORKS, SANDBOX_RPC_URL } from './networks.ts';
import type { CctpRouteSettings, ChainSettings, HomeChainSettings } from './settings.ts';

export { isSourceChain } from './settings.ts';

import { type RawEnv, sourceChainsConfig, sourceChainsEnv } from './sourceChains.ts';
import { tokenSettings } from './tokens.ts';

export type {
  CctpRouteSettings,
  ChainMode,
  ChainRole,
  ChainSettings,
  Finality,
  HomeChainSettings,
  SourceChainSettings,
} from './settings.ts';

export const chainsEnv = {
  PAYLINK_RPC_URL: rpcUrlList('PAYLINK_RPC_URL'),
  PAYLINK_PUBLIC_RPC_URL: url.optional(),
  PAYLINK_USDC_ADDRESS: address('PAYLINK_USDC_ADDRESS').optional(),
  PAYLINK_ACCEPTED_TOKENS: z.string().optional(),
  PAYLINK_NOTICED_TOKENS: z.string().optional(),
  PAYLINK_FACTORY_ADDRESS: address('PAYLINK_FACTORY_ADDRESS').optional(),
  PAYLINK_TREASURY_ADDRESS: address('PAYLINK_TREASURY_ADDRESS').optional(),
  PAYLINK_SUBSCRIPTION_CHARGER: address('PAYLINK_SUBSCRIPTION_CHARGER').optional(),
  PAYLINK_RELAYER_KEY: privateKey('PAYLINK_RELAYER_KEY'),
  // Test mode (sk_test_ keys): its own chain, or the live one when the networks are the same.
  PAYLINK_TEST_NETWORK: z.enum(['sandbox', 'amoy', 'off']).optional(),
  PAYLINK_TEST_RPC_URL: rpcUrlList('PAYLINK_TEST_RPC_URL'),
  PAYLINK_TEST_USDC_ADDRESS: address('PAYLINK_TEST_USDC_ADDRESS').optional(),
  PAYLINK_TEST_FACTORY_ADDRESS: address('PAYLINK_TEST_FACTORY_ADDRESS').optional(),
  PAYLINK_TEST_TREASURY_ADDRESS: address('PAYLINK_TEST_TREASURY_ADDRESS').optional(),
  PAYLINK_TEST_SUBSCRIPTION_CHARGER: address('PAYLINK_TEST_SUBSCRIPTION_CHARGER').optional(),
  PAYLINK_TEST_RELAYER_KEY: privateKey('PAYLINK_TEST_RELAYER_KEY'),
  PAYLINK_TEST_START_BLOCK: blockNumber('PAYLINK_TEST_START_BLOCK'),
  // CCTP v2 on the home chains: the network's (Circle's) unless given, the sandbox's deployed at start.
  PAYLINK_TOKEN_MESSENGER: address('PAYLINK_TOKEN_MESSENGER').optional(),
  PAYLINK_MESSAGE_TRANSMITTER: address('PAYLINK_MESSAGE_TRANSMITTER').optional(),
  PAYLINK_TEST_TOKEN_MESSENGER: address('PAYLINK_TEST_TOKEN_MESSENGER').optional(),
  PAYLINK_TEST_MESSAGE_TRANSMITTER: address('PAYLINK_TEST_MESSAGE_TRANSMITTER').optional(),
  ...sourceChainsEnv,
  PAYLINK_FINALITY: finality('PAYLINK_FINALITY'),
  PAYLINK_POLL_INTERVAL: duration('PAYLINK_POLL_INTERVAL').default(2_000),
  PAYLINK_MAX_BLOCK_RANGE: z.coerce.number().int().min(1).max(100_000).default(2_000),
  PAYLINK_START_BLOCK: blockNumber('PAYLINK_START_BLOCK'),
  PAYLINK_DUST_THRESHOLD: usdcAmount('PAYLINK_DUST_THRESHOLD').default(10_000n),
  PAYLINK_RELAYER_LOW_BALANCE: z
    .string()
    .regex(/^\d+(\.\d{1,18})?$/, 'PAYLINK_RELAYER_LOW_BALANCE must be an amount of POL')
    .default('1'),
  PAYLINK_GASLESS: z.enum(['on', 'off']).default('on'),
  PAYLINK_GASLESS_RELAYER_KEY: privateKey('PAYLINK_GASLESS_RELAYER_KEY'),
  PAYLINK_GASLESS_MAX_FEE_PER_HOUR: z
    .string()
    .regex(/^\d+(\.\d{1,18})?$/, 'PAYLINK_GASLESS_MAX_FEE_PER_HOUR must be an amount of POL')
    .default('5'),
};

export type ChainsEnv = z.infer<z.ZodObject<typeof chainsEnv>>;

/**
 * Every chain of the deployment, per mode its home chain then its source chains: the live home (PAYLINK_NETWORK)
 * and PAYLINK_CHAINS, then unless test mode is off the test home and PAYLINK_TEST_CHAINS. `env` is the raw
 * environment, where each enabled source chain's own variables are read (PAYLINK_BASE_RPC_URL, ...).
 */
export function chainsConfig(
  e: ChainsEnv,
  network: HomeNetwork,
  env: RawEnv,
): {
  chains: readonly ChainSettings[];
  liveHome: HomeChainSettings;
  testHome: HomeChainSettings | undefined;
} {
  const live = liveHomeSettings(e, network);
  const test = testHomeSettings(e, live);
  const { live: liveSources, test: testSources } = sourceChainsConfig(e, env, live, test);
  return {
    chains: [live, ...liveSources, ...(test ? [test, ...testSources] : [])],
    liveHome: live,
    testHome: test,
  };
}

function homeCctp(
  network: HomeNetwork,
  tokenMessenger: Address | undefined,
  messageTransmitter: Address | undefined,
): CctpRouteSettings {
  const preset = NETWORKS[network].cctp;
  return {
    domain: preset.domain,
    tokenMessenger: tokenMessenger ?? preset.tokenMessenger,
    messageTransmitter: messageTransmitter ?? preset.messageTransmitter,
    transferSpeed: 'standard',
    maxFeeBps: 0,
    fastConfirmations: DEFAULT_FAST_CONFIRMATIONS,
  };
}

function liveHomeSettings(e: ChainsEnv, network: HomeNetwork): HomeChainSettings {
  const preset = NETWORKS[network];
  return {
    mode: 'live',
    role: 'home',
    homeChainId: preset.chainId,
    cctp: homeCctp(network, e.PAYLINK_TOKEN_MESSENGER, e.PAYLINK_MESSAGE_TRANSMITTER),
    variablePrefix: 'PAYLINK_',
    network,
    chainId: preset.chainId,
    rpcUrls: e.PAYLINK_RPC_URL.length > 0 || network !== 'sandbox' ? e.PAYLINK_RPC_URL : [SANDBOX_RPC_URL],
    usdcAddress: e.PAYLINK_USDC_ADDRESS ?? preset.usdcAddress,
    publicRpcUrl: publicRpcUrl(e.PAYLINK_PUBLIC_RPC_URL, network) ?? preset.publicRpcUrl,
    ...tokenSettings(
      preset,
      e.PAYLINK_USDC_ADDRESS ?? preset.usdcAddress,
      e.PAYLINK_ACCEPTED_TOKENS,
      e.PAYLINK_NOTICED_TOKENS,
      'PAYLINK_',
    ),
    factoryAddress: e.PAYLINK_FACTORY_ADDRESS,
    treasuryAddress: e.PAYLINK_TREASURY_ADDRESS,
    subscriptionCharger: e.PAYLINK_SUBSCRIPTION_CHARGER,
    relayerKey: e.PAYLINK_RELAYER_KEY,
    finality: e.PAYLINK_FINALITY,
    pollIntervalMs: e.PAYLINK_POLL_INTERVAL,
    maxBlockRange: e.PAYLINK_MAX_BLOCK_RANGE,
    startBlock: e.PAYLINK_START_BLOCK,
    dustThresholdBaseUnits: e.PAYLINK_DUST_THRESHOLD,
    relayerLowBalanceWei: nativeToWei(e.PAYLINK_RELAYER_LOW_BALANCE),
    gasless: {
      enabled: e.PAYLINK_GASLESS === 'on',
      relayerKey: e.PAYLINK_GASLESS_RELAYER_KEY,
      maxFeeWeiPerHour: nativeToWei(e.PAYLINK_GASLESS_MAX_FEE_PER_HOUR),
    },
  };
}

/**
 * The test-mode chain: PAYLINK_TEST_NETWORK, default `sandbox` when the live network is the sandbox (one local
 * chain serves both modes), else `off`. On the live network itself every PAYLINK_TEST_* setting defaults to
 * the live one; on another network only USDC has a default (the preset's) and the RPC one on the sandbox.
 */
function testHomeSettings(e: ChainsEnv, live: HomeChainSettings): HomeChainSettings | undefined {
  const network = e.PAYLINK_TEST_NETWORK ?? (live.network === 'sandbox' ? 'sandbox' : 'off');
  if (network === 'off') return undefined;
  const same = network === live.network;
  const preset = NETWORKS[network];
  const rpcUrls =
    e.PAYLINK_TEST_RPC_URL.length > 0
      ? e.PAYLINK_TEST_RPC_URL
      : same
        ? live.rpcUrls
        : network === 'sandbox'
          ? [SANDBOX_RPC_URL]
          : [];
  return {
    ...live,
    mode: 'test',
    homeChainId: preset.chainId,
    cctp: same
      ? homeCctp(
          network,
          e.PAYLINK_TEST_TOKEN_MESSENGER ?? live.cctp?.tokenMessenger,
          e.PAYLINK_TEST_MESSAGE_TRANSMITTER ?? live.cctp?.messageTransmitter,
        )
      : homeCctp(network, e.PAYLINK_TEST_TOKEN_MESSENGER, e.PAYLINK_TEST_MESSAGE_TRANSMITTER),
    variablePrefix: 'PAYLINK_TEST_',
    network,
    chainId: preset.chainId,
    rpcUrls,
    usdcAddress: e.PAYLINK_TEST_USDC_ADDRESS ?? (same ? live.usdcAddress : preset.usdcAddress),
    // PAYLINK_PUBLIC_RPC_URL is the live network's: another test network keeps its preset.
    publicRpcUrl: same ? live.publicRpcUrl : preset.publicRpcUrl,
    // The live chain's token choices when it is the same network; the network's defaults otherwise.
    ...(same
      ? { acceptedTokens: live.acceptedTokens, noticedTokens: live.noticedTokens }
      : tokenSettings(
          preset,
          e.PAYLINK_TEST_USDC_ADDRESS ?? preset.usdcAddress,
          undefined,
          undefined,
          'PAYLINK_TEST_',
        )),
    factoryAddress: e.PAYLINK_TEST_FACTORY_ADDRESS ?? (same ? live.factoryAddress : undefined),
    treasuryAddress: e.PAYLINK_TEST_TREASURY_ADDRESS ?? (same ? live.treasuryAddress : undefined),
    subscriptionCharger: e.PAYLINK_TEST_SUBSCRIPTION_CHARGER ?? (same ? live.subscriptionCharger : undefined),
    relayerKey: e.PAYLINK_TEST_RELAYER_KEY ?? (same ? live.relayerKey : undefined),
    // The gasless relayer's key is the live chain's; another test network offers it only on the sandbox.
    gasless: { ...live.gasless, relayerKey: same ? live.gasless.relayerKey : undefined },
    // A block number means nothing on another chain.
    startBlock: e.PAYLINK_TEST_START_BLOCK ?? (same ? live.startBlock : undefined),
  };
}

/** One mode's chains of the configuration: its home chain, then its sources. */
export function chainsOfMode<C extends Pick<ChainSettings, 'mode'>>(
  chains: readonly C[],
  mode: ChainSettings['mode'],
): C[] {
  return chains.filter((chain) => chain.mode === mode);
}

/**
 * PAYLINK_PUBLIC_RPC_URL: https, or http only on the sandbox or to a loopback host (a customer's browser cannot
 * reach anything else over plain http safely). Never with credentials: every customer's wallet is handed it.
 */
function publicRpcUrl(setting: string | undefined, network: ChainNetwork): string | undefined {
  if (setting === undefined) return undefined;
  const parsed = new URL(setting);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol === 'http:' && network !== 'sandbox' && !loopback)
    throw new ConfigError(
      'Invalid configuration:\n  PAYLINK_PUBLIC_RPC_URL must be an https URL (http only on the sandbox or a loopback host)',
    );
  if (parsed.username || parsed.password)
    throw new ConfigError('Invalid configuration:\n  PAYLINK_PUBLIC_RPC_URL must not carry credentials');
  return setting;
}

/** The variable, after the chain's prefix, that gives each setting a role may require. */
const REQUIRED_VARIABLE = {
  rpcUrls: 'RPC_URL',
  usdcAddress: 'USDC_ADDRESS',
  factoryAddress: 'FACTORY_ADDRESS',
  treasuryAddress: 'TREASURY_ADDRESS',
  relayerKey: 'RELAYER_KEY',
} as const;

/**
 * A chain setting a role needs, or a ConfigError naming the variable that is missing. Checked when the API or
 * worker starts, not at load, so administrative commands run without a chain configured.
 */
export function requireChainSetting<K extends keyof typeof REQUIRED_VARIABLE>(
  chain: ChainSettings,
  key: K,
): NonNullable<ChainSettings[K]> {
  const value = chain[key];
  if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    throw new ConfigError(
      `Invalid configuration:\n  ${chain.variablePrefix}${REQUIRED_VARIABLE[key]} is required on ${chain.network}`,
    );
  }
  return value as NonNullable<ChainSettings[K]>;
}
