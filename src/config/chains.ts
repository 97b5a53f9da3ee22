import type { Address, Hex } from 'viem';
import { z } from 'zod';
import { ConfigError } from './configError.ts';
import { address, blockNumber, duration, privateKey, rpcUrlList, url, usdcAmount } from './fields.ts';
import {
  NETWORKS,
  type Network,
  SANDBOX_RPC_URL,
  type TokenSetting,
  type VariablePrefix,
} from './networks.ts';
import { tokenSettings } from './tokens.ts';

/** When a transfer counts as final: the node's `finalized` block, or N confirmations on top of its block. */
export type Finality =
  | { readonly kind: 'finalized' }
  | { readonly kind: 'confirmations'; readonly confirmations: number };

/** Which payments a chain takes: live ones (sk_live_ keys) or test-mode ones (sk_test_ keys). */
export type ChainMode = 'live' | 'test';

/**
 * One chain the service takes payments on, with every setting of it. The configuration holds a list of them
 * (`Config.chains`), and whatever runs per chain (the watcher, the settler, the gasless relayer, the checkout's
 * networks, the dashboard's explorers) iterates that list: a new chain is one more entry.
 */
export interface ChainConfig {
  readonly mode: ChainMode;
  /** The beginning of its variables' names, so that a message names the one to set. */
  readonly variablePrefix: VariablePrefix;
  readonly network: Network;
  readonly chainId: number;
  readonly rpcUrls: readonly string[];
  readonly usdcAddress: Address | undefined;
  /**
   * Tokens that pay (PAYLINK_ACCEPTED_TOKENS): USDC first — the token a payment asks for, at usdcAddress — then
   * any other 6-decimal USD stablecoin enabled (USDC.e). Each is read in the watcher's one request per range.
   */
  readonly acceptedTokens: readonly TokenSetting[];
  /** Tokens recorded when sent to a payment, but never counted (PAYLINK_NOTICED_TOKENS). */
  readonly noticedTokens: readonly TokenSetting[];
  /**
   * The public RPC the checkout's wallet button offers (wallet_addEthereumChain): PAYLINK_PUBLIC_RPC_URL, else
   * the network preset's. Shown to every customer, so never a provider URL with an API key.
   */
  readonly publicRpcUrl: string | undefined;
  readonly factoryAddress: Address | undefined;
  readonly treasuryAddress: Address | undefined;
  readonly relayerKey: Hex | undefined;
  readonly finality: Finality;
  readonly pollIntervalMs: number;
  /** The most blocks one eth_getLogs may span (RPC providers cap ranges; 2,000 is a common limit). */
  readonly maxBlockRange: number;
  /** Where a new chain cursor starts; default: the head when the watcher first runs. */
  readonly startBlock: bigint | undefined;
  /** Final funds below this wait for more before being flushed (gas would cost more than they are worth). */
  readonly dustThresholdBaseUnits: bigint;
  /** The relayer's gas balance below which the service warns loudly, in wei. */
  readonly relayerLowBalanceWei: bigint;
  /**
   * Gasless payment (decision 0012): offered when PAYLINK_GASLESS is on and this key is set (the sandbox has
   * its own). A key of its own: the settler's relayer key has one writer of its nonces.
   */
  readonly gasless: {
    readonly enabled: boolean;
    readonly relayerKey: Hex | undefined;
    /** The most the gasless relayer may pay for gas in any hour, in wei (PAYLINK_GASLESS_MAX_FEE_PER_HOUR). */
    readonly maxFeeWeiPerHour: bigint;
  };
}

export const chainsEnv = {
  PAYLINK_RPC_URL: rpcUrlList('PAYLINK_RPC_URL'),
  PAYLINK_PUBLIC_RPC_URL: url.optional(),
  PAYLINK_USDC_ADDRESS: address('PAYLINK_USDC_ADDRESS').optional(),
  PAYLINK_ACCEPTED_TOKENS: z.string().optional(),
  PAYLINK_NOTICED_TOKENS: z.string().optional(),
  PAYLINK_FACTORY_ADDRESS: address('PAYLINK_FACTORY_ADDRESS').optional(),
  PAYLINK_TREASURY_ADDRESS: address('PAYLINK_TREASURY_ADDRESS').optional(),
  PAYLINK_RELAYER_KEY: privateKey('PAYLINK_RELAYER_KEY'),
  // Test mode (sk_test_ keys): its own chain, or the live one when the networks are the same.
  PAYLINK_TEST_NETWORK: z.enum(['sandbox', 'amoy', 'off']).optional(),
  PAYLINK_TEST_RPC_URL: rpcUrlList('PAYLINK_TEST_RPC_URL'),
  PAYLINK_TEST_USDC_ADDRESS: address('PAYLINK_TEST_USDC_ADDRESS').optional(),
  PAYLINK_TEST_FACTORY_ADDRESS: address('PAYLINK_TEST_FACTORY_ADDRESS').optional(),
  PAYLINK_TEST_TREASURY_ADDRESS: address('PAYLINK_TEST_TREASURY_ADDRESS').optional(),
  PAYLINK_TEST_RELAYER_KEY: privateKey('PAYLINK_TEST_RELAYER_KEY'),
  PAYLINK_TEST_START_BLOCK: blockNumber('PAYLINK_TEST_START_BLOCK'),
  PAYLINK_FINALITY: z
    .string()
    .default('finalized')
    .transform((text, ctx): Finality => {
      if (text === 'finalized') return { kind: 'finalized' };
      const match = /^confirmations:(\d{1,4})$/.exec(text);
      if (!match) {
        ctx.addIssue({ code: 'custom', message: 'PAYLINK_FINALITY must be finalized or confirmations:N' });
        return z.NEVER;
      }
      return { kind: 'confirmations', confirmations: Number(match[1]) };
    }),
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

type ChainsEnv = z.infer<z.ZodObject<typeof chainsEnv>>;

/** Every chain of the deployment: the live one (PAYLINK_NETWORK) first, then the test one unless test mode is off. */
export function chainsConfig(e: ChainsEnv, network: Network): readonly ChainConfig[] {
  const live = liveChainConfig(e, network);
  const test = testChainConfig(e, live);
  return test ? [live, test] : [live];
}

function liveChainConfig(e: ChainsEnv, network: Network): ChainConfig {
  const preset = NETWORKS[network];
  return {
    mode: 'live',
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
    relayerKey: e.PAYLINK_RELAYER_KEY,
    finality: e.PAYLINK_FINALITY,
    pollIntervalMs: e.PAYLINK_POLL_INTERVAL,
    maxBlockRange: e.PAYLINK_MAX_BLOCK_RANGE,
    startBlock: e.PAYLINK_START_BLOCK,
    dustThresholdBaseUnits: e.PAYLINK_DUST_THRESHOLD,
    relayerLowBalanceWei: polToWei(e.PAYLINK_RELAYER_LOW_BALANCE),
    gasless: {
      enabled: e.PAYLINK_GASLESS === 'on',
      relayerKey: e.PAYLINK_GASLESS_RELAYER_KEY,
      maxFeeWeiPerHour: polToWei(e.PAYLINK_GASLESS_MAX_FEE_PER_HOUR),
    },
  };
}

/**
 * The test-mode chain: PAYLINK_TEST_NETWORK, default `sandbox` when the live network is the sandbox (one local
 * chain serves both modes), else `off`. On the live network itself every PAYLINK_TEST_* setting defaults to
 * the live one; on another network only USDC has a default (the preset's) and the RPC one on the sandbox.
 */
function testChainConfig(e: ChainsEnv, live: ChainConfig): ChainConfig | undefined {
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
    relayerKey: e.PAYLINK_TEST_RELAYER_KEY ?? (same ? live.relayerKey : undefined),
    // The gasless relayer's key is the live chain's; another test network offers it only on the sandbox.
    gasless: { ...live.gasless, relayerKey: same ? live.gasless.relayerKey : undefined },
    // A block number means nothing on another chain.
    startBlock: e.PAYLINK_TEST_START_BLOCK ?? (same ? live.startBlock : undefined),
  };
}

/**
 * PAYLINK_PUBLIC_RPC_URL: https, or http only on the sandbox or to a loopback host (a customer's browser cannot
 * reach anything else over plain http safely). Never with credentials: every customer's wallet is handed it.
 */
function publicRpcUrl(setting: string | undefined, network: Network): string | undefined {
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

function polToWei(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
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
  chain: ChainConfig,
  key: K,
): NonNullable<ChainConfig[K]> {
  const value = chain[key];
  if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    throw new ConfigError(
      `Invalid configuration:\n  ${chain.variablePrefix}${REQUIRED_VARIABLE[key]} is required on ${chain.network}`,
    );
  }
  return value as NonNullable<ChainConfig[K]>;
}
