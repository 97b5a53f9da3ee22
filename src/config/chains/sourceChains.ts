import { z } from 'zod';
import { ConfigError } from '../configError.ts';
import { address, blockNumber, finality, nativeAmount, privateKey, rpcUrlList } from '../fields.ts';
import { DEFAULT_FAST_CONFIRMATIONS } from './cctp.ts';
import {
  type HomeNetwork,
  LIVE_SOURCE_NETWORKS,
  NETWORKS,
  type SourceNetwork,
  TEST_SOURCE_NETWORKS,
  type VariablePrefix,
} from './networks.ts';
import type { HomeChainSettings, SourceChainSettings } from './settings.ts';
import { tokenSettings } from './tokens.ts';

/**
 * The source chains (decision 0032): PAYLINK_CHAINS for live payments (mainnets, burnt to Polygon) and
 * PAYLINK_TEST_CHAINS for test payments (testnets, burnt to Amoy; `sandbox-2` on the sandbox). Each enabled chain
 * reads variables named after it: PAYLINK_BASE_RPC_URL, PAYLINK_BASE_SEPOLIA_FINALITY, PAYLINK_SANDBOX_2_...
 */
export type RawEnv = Readonly<Record<string, string | undefined>>;

export const sourceChainsEnv = {
  PAYLINK_CHAINS: z.string().optional(),
  PAYLINK_TEST_CHAINS: z.string().optional(),
};

/**
 * What the source chains read of the parsed environment: their lists (typed by their schema,
 * `sourceChainsEnv`), and whether the sandbox is shared (a home factory or USDC configured).
 */
type SourceListsEnv = z.infer<z.ZodObject<typeof sourceChainsEnv>> & {
  readonly PAYLINK_FACTORY_ADDRESS?: string | undefined;
  readonly PAYLINK_USDC_ADDRESS?: string | undefined;
};

/** The most a table may let a fast burn pay (ForwarderFactoryV3.MAX_BURN_FEE_BPS). */
const MAX_BURN_FEE_BPS = 100;
/**
 * A cap, not a price: Circle charges its current fast fee (1 to a few basis points), never more than the cap.
 * 10 leaves room for Circle to raise it without a new factory; standard transfers pay nothing whatever the cap.
 */
const DEFAULT_MAX_FEE_BPS = '10';
/** The most blocks a fast burn may wait for: beyond, standard speed (finality) is the honest choice. */
const MAX_FAST_CONFIRMATIONS = 64;

/** A source chain's own variables, after its prefix. */
const sourceChainSchema = (prefix: string, lowBalance: string) =>
  z.object({
    RPC_URL: rpcUrlList(`${prefix}RPC_URL`),
    USDC_ADDRESS: address(`${prefix}USDC_ADDRESS`).optional(),
    TOKEN_MESSENGER: address(`${prefix}TOKEN_MESSENGER`).optional(),
    MESSAGE_TRANSMITTER: address(`${prefix}MESSAGE_TRANSMITTER`).optional(),
    FINALITY: finality(`${prefix}FINALITY`),
    TRANSFER_SPEED: z
      .enum(['fast', 'standard'], { message: `${prefix}TRANSFER_SPEED must be fast or standard` })
      .default('standard'),
    MAX_FEE_BPS: z
      .string()
      .default(DEFAULT_MAX_FEE_BPS)
      .refine(
        (text) => /^\d{1,3}$/.test(text) && Number(text) <= MAX_BURN_FEE_BPS,
        `${prefix}MAX_FEE_BPS must be whole basis points from 0 to ${MAX_BURN_FEE_BPS}`,
      )
      .transform(Number),
    FAST_CONFIRMATIONS: z
      .string()
      .default(String(DEFAULT_FAST_CONFIRMATIONS))
      .refine(
        (text) => /^\d{1,2}$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_FAST_CONFIRMATIONS,
        `${prefix}FAST_CONFIRMATIONS must be a whole number of blocks from 1 to ${MAX_FAST_CONFIRMATIONS}`,
      )
      .transform(Number),
    RELAYER_KEY: privateKey(`${prefix}RELAYER_KEY`),
    RELAYER_LOW_BALANCE: nativeAmount(`${prefix}RELAYER_LOW_BALANCE`, lowBalance),
    START_BLOCK: blockNumber(`${prefix}START_BLOCK`),
  });

/** `base-sepolia` → `PAYLINK_BASE_SEPOLIA_`. */
export function sourceVariablePrefix(network: SourceNetwork): VariablePrefix {
  return `PAYLINK_${network.toUpperCase().replaceAll('-', '_')}_`;
}

/** Each mode's source chains, in the order they are listed. */
export function sourceChainsConfig(
  e: SourceListsEnv,
  env: RawEnv,
  live: HomeChainSettings,
  test: HomeChainSettings | undefined,
): { live: SourceChainSettings[]; test: SourceChainSettings[] } {
  const liveNames = enabledSources('PAYLINK_CHAINS', e.PAYLINK_CHAINS ?? defaultLiveSources(e, live), live);
  const testSpec = e.PAYLINK_TEST_CHAINS ?? (test?.network === live.network ? liveNames.join(',') : '');
  if (test === undefined && testSpec.trim() !== '') {
    throw new ConfigError(
      'Invalid configuration:\n  PAYLINK_TEST_CHAINS needs test mode: set PAYLINK_TEST_NETWORK (amoy or sandbox)',
    );
  }
  const testNames = test ? enabledSources('PAYLINK_TEST_CHAINS', testSpec, test) : [];
  return {
    live: liveNames.map((name) => sourceChainSettings(env, name, live)),
    test: test ? testNames.map((name) => sourceChainSettings(env, name, test)) : [],
  };
}

/**
 * On the sandbox, its second chain unless the sandbox's contracts were deployed by someone else (a configured
 * factory or USDC: several processes, the tests), who then deploys the second chain's too and says so.
 */
function defaultLiveSources(e: SourceListsEnv, live: HomeChainSettings): string {
  return live.network === 'sandbox' && !e.PAYLINK_FACTORY_ADDRESS && !e.PAYLINK_USDC_ADDRESS
    ? 'sandbox-2'
    : '';
}

/** The family of chains whose burns a home network receives: mainnets on Polygon, testnets on Amoy. */
const SOURCES_OF: Readonly<Record<HomeNetwork, readonly SourceNetwork[]>> = {
  polygon: LIVE_SOURCE_NETWORKS,
  amoy: TEST_SOURCE_NETWORKS.filter((name) => name !== 'sandbox-2'),
  sandbox: ['sandbox-2'],
};

/**
 * The names in PAYLINK_CHAINS or PAYLINK_TEST_CHAINS, each checked: known, of the variable's kind (mainnets for
 * live payments, testnets for test ones), burning to the mode's home network, and listed once.
 */
function enabledSources(variable: string, spec: string, home: HomeChainSettings): SourceNetwork[] {
  const fail = (message: string): never => {
    throw new ConfigError(`Invalid configuration:\n  ${variable}: ${message}`);
  };
  const live = variable === 'PAYLINK_CHAINS';
  const names = spec
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const known: readonly string[] = [...LIVE_SOURCE_NETWORKS, ...TEST_SOURCE_NETWORKS];
  const allowed: readonly string[] = live ? [...LIVE_SOURCE_NETWORKS, 'sandbox-2'] : TEST_SOURCE_NETWORKS;
  const seen = new Set<string>();
  for (const name of names) {
    if (!known.includes(name)) {
      fail(
        `${JSON.stringify(name)} is not a chain Paylink knows (${live ? LIVE_SOURCE_NETWORKS.join(', ') : TEST_SOURCE_NETWORKS.join(', ')})`,
      );
    }
    if (!allowed.includes(name)) {
      fail(
        live
          ? `${name} is a testnet: list it in PAYLINK_TEST_CHAINS (test payments)`
          : `${name} is a mainnet: list it in PAYLINK_CHAINS (live payments)`,
      );
    }
    if (!(SOURCES_OF[home.network] as readonly string[]).includes(name)) {
      const needs = name === 'sandbox-2' ? 'sandbox' : live ? 'polygon' : 'amoy';
      fail(
        `${name} burns to ${needs}, but the ${home.mode} network is ${home.network} (${home.variablePrefix === 'PAYLINK_' ? 'PAYLINK_NETWORK' : 'PAYLINK_TEST_NETWORK'})`,
      );
    }
    if (seen.has(name)) fail(`${name} is listed twice`);
    seen.add(name);
  }
  return names as SourceNetwork[];
}

/** One source chain of `home`'s mode: its preset, then its own variables, then its home chain's defaults. */
function sourceChainSettings(
  env: RawEnv,
  network: SourceNetwork,
  home: HomeChainSettings,
): SourceChainSettings {
  const preset = NETWORKS[network];
  const prefix = sourceVariablePrefix(network);
  const schema = sourceChainSchema(prefix, preset.relayerLowBalance);
  const own = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, env[`${prefix}${key}`]]));
  const parsed = schema.safeParse(own);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${prefix}${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const v = parsed.data;
  const rpcUrls =
    v.RPC_URL.length > 0 ? v.RPC_URL : network === 'sandbox-2' ? [secondSandboxRpcUrl(home)] : [];
  if (rpcUrls.length === 0) {
    throw new ConfigError(
      `Invalid configuration:\n  ${prefix}RPC_URL is required: ${network} is enabled in ${home.mode === 'live' ? 'PAYLINK_CHAINS' : 'PAYLINK_TEST_CHAINS'}`,
    );
  }
  const usdcAddress = v.USDC_ADDRESS ?? preset.usdcAddress;
  return {
    mode: home.mode,
    role: 'source',
    homeChainId: home.chainId,
    cctp: {
      domain: preset.cctp.domain,
      tokenMessenger: v.TOKEN_MESSENGER ?? preset.cctp.tokenMessenger,
      messageTransmitter: v.MESSAGE_TRANSMITTER ?? preset.cctp.messageTransmitter,
      transferSpeed: v.TRANSFER_SPEED,
      maxFeeBps: v.MAX_FEE_BPS,
      fastConfirmations: v.FAST_CONFIRMATIONS,
    },
    variablePrefix: prefix,
    network,
    chainId: preset.chainId,
    rpcUrls,
    usdcAddress,
    // Circle's USDC only: what a source chain receives is burnt to Polygon, which only CCTP's token can be.
    ...tokenSettings(preset, usdcAddress, undefined, undefined, prefix),
    publicRpcUrl: preset.publicRpcUrl,
    // The same factory address on every chain of the mode (decision 0028): the home chain's.
    factoryAddress: home.factoryAddress,
    treasuryAddress: home.treasuryAddress,
    relayerKey: v.RELAYER_KEY ?? home.relayerKey,
    finality: v.FINALITY,
    pollIntervalMs: home.pollIntervalMs,
    maxBlockRange: home.maxBlockRange,
    startBlock: v.START_BLOCK,
    dustThresholdBaseUnits: home.dustThresholdBaseUnits,
    relayerLowBalanceWei: v.RELAYER_LOW_BALANCE,
    // The mode's gasless relayer key submits signed transfers here too (decision 0012): the operator funds it
    // with this chain's gas, as the relayer key above. Its nonces are this chain's own, one writer per chain.
    gasless: home.gasless,
  };
}

/**
 * The sandbox's second chain listens on the port after the first's (8546 beside 8545), so that every process of
 * one sandbox finds it without another setting; PAYLINK_SANDBOX_2_RPC_URL moves it.
 */
function secondSandboxRpcUrl(home: HomeChainSettings): string {
  const url = new URL(home.rpcUrls[0] ?? 'http://127.0.0.1:8545');
  url.port = String(Number(url.port || '80') + 1);
  return url.toString().replace(/\/$/, '');
}
