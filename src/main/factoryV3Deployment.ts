/**
 * `paylink contracts deploy` and `paylink contracts check` (decisions 0032 and 0038): the version 3 factory of the
 * mode's route table on each of its chains, at one address, each checked against the table (its routesHash, and
 * its own row). A mode without source chains has a table of its home row alone: its home chain gets version 3
 * too. Before a first deployment each row's contracts are checked on their chain: code at the USDC, and for a
 * table with source chains code at the TokenMessengerV2 whose transmitter is on the row's domain — a wrong row
 * would send every future deposit of that chain elsewhere, and cannot be corrected once deployed.
 */
import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  isAddressEqual,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  forwarderFactoryV3Abi,
  testMessageTransmitterV2Abi,
  testTokenMessengerV2Abi,
} from '../adapters/chain/contractAbis.ts';
import { holdsCode } from '../adapters/chain/contractCode.ts';
import { deploySubscriptionCharger } from '../adapters/chain/deployContracts.ts';
import { readForwarderVersion } from '../adapters/chain/flushCalls.ts';
import { type ChainRoute, deployFactoryV3 } from '../adapters/chain/multiChainFactory.ts';
import { expectedFactoryV3 } from '../adapters/chain/routeTable.ts';
import {
  type ChainMode,
  type ChainSettings,
  type Config,
  ConfigError,
  chainsOfMode,
  NETWORKS,
  requireChainSetting,
} from '../config/index.ts';

/** What was found on one chain of the mode. */
export interface FactoryV3ChainReport {
  readonly network: string;
  readonly chainId: number;
  readonly factory: Address;
  /** Empty when the factory is there with the table's hash and this chain's row. */
  readonly problems: readonly string[];
}

export interface FactoryV3Report {
  readonly mode: ChainMode;
  readonly factory: Address;
  readonly implementation: Address;
  readonly routesHash: Hex;
  readonly chains: readonly FactoryV3ChainReport[];
  /**
   * The factory the configuration names for new payments (PAYLINK_FACTORY_ADDRESS or the test one), when it is
   * not the table's: a deployment made before version 3 (version 2: its new payments stay on version 2 until it
   * is set to `factory`), or a factory of another table. Undefined when unset or the table's own.
   */
  readonly configured?: { readonly address: Address; readonly version: number | undefined } | undefined;
  /**
   * `contracts deploy` only: pull renewal's charger on the home chain (decision 0061), the configured one
   * (PAYLINK_SUBSCRIPTION_CHARGER) where it holds code, else one deployed now.
   */
  readonly subscriptionCharger?: { readonly address: Address; readonly deployed: boolean } | undefined;
}

/** Deploys (where missing) the mode's factory on each of its chains, then checks each. */
export async function deployFactoryV3OnChains(config: Config, mode: ChainMode): Promise<FactoryV3Report> {
  let subscriptionCharger: FactoryV3Report['subscriptionCharger'];
  const report = await visitChains(config, mode, async (chain, clients, expected) => {
    const row = rowOf(expected.routes, chain.chainId);
    const problems = await rowProblems(clients.publicClient, row, chain, expected.routes.length === 1);
    if (problems.length > 0) return problems;
    const wallet = createWalletClient({
      account: privateKeyToAccount(requireChainSetting(chain, 'relayerKey')),
      chain: clients.chain,
      transport: http(clients.rpcUrl),
    });
    await deployFactoryV3(wallet, clients.publicClient, expected.routes);
    if (chain.role === 'home') subscriptionCharger = await ensureCharger(wallet, clients.publicClient, chain);
    return factoryProblems(clients.publicClient, expected.factory, expected.routesHash, row);
  });
  return { ...report, subscriptionCharger };
}

/** The home chain's charger: the configured one where it holds code (one per chain is enough), else a new one. */
async function ensureCharger(
  wallet: Parameters<typeof deploySubscriptionCharger>[0],
  client: PublicClient,
  chain: ChainSettings,
): Promise<NonNullable<FactoryV3Report['subscriptionCharger']>> {
  const configured = chain.subscriptionCharger;
  if (configured && (await holdsCode(client, configured))) return { address: configured, deployed: false };
  return { address: await deploySubscriptionCharger(wallet, client), deployed: true };
}

/** Reports, chain by chain, whether the mode's factory is deployed there as its table says. */
export async function checkFactoryV3OnChains(config: Config, mode: ChainMode): Promise<FactoryV3Report> {
  return visitChains(config, mode, async (chain, clients, expected) =>
    factoryProblems(
      clients.publicClient,
      expected.factory,
      expected.routesHash,
      rowOf(expected.routes, chain.chainId),
    ),
  );
}

type ChainClients = { rpcUrl: string; chain: Chain; publicClient: PublicClient };
type Expected = Awaited<ReturnType<typeof expectedFactoryV3>>;

async function visitChains(
  config: Config,
  mode: ChainMode,
  visit: (chain: ChainSettings, clients: ChainClients, expected: Expected) => Promise<string[]>,
): Promise<FactoryV3Report> {
  const chains = chainsOfMode(config.chains, mode);
  if (chains[0]?.role !== 'home')
    throw new ConfigError(
      `the ${mode} mode has no chain: ${mode === 'test' ? 'PAYLINK_TEST_NETWORK' : 'PAYLINK_NETWORK'} is not set`,
    );
  const expected = await expectedFactoryV3(chains);
  const reports: FactoryV3ChainReport[] = [];
  let configured: FactoryV3Report['configured'];
  for (const chain of chains) {
    const clients = await clientsOf(chain);
    const problems = await visit(chain, clients, expected);
    reports.push({ network: chain.network, chainId: chain.chainId, factory: expected.factory, problems });
    if (chain.role === 'home')
      configured = await configuredFactory(clients.publicClient, chain, expected.factory);
  }
  return {
    mode,
    factory: expected.factory,
    implementation: expected.implementation,
    routesHash: expected.routesHash,
    chains: reports,
    configured,
  };
}

/** The home chain's configured factory when it is not the table's, with its version (undefined: no factory). */
async function configuredFactory(
  client: PublicClient,
  home: ChainSettings,
  tableFactory: Address,
): Promise<FactoryV3Report['configured']> {
  const address = home.factoryAddress;
  if (address === undefined || isAddressEqual(address, tableFactory)) return undefined;
  const version = await readForwarderVersion(client, address).catch((error: unknown) => {
    if (error instanceof Error && error.message.startsWith('no factory deployed')) return undefined;
    throw error;
  });
  return { address, version };
}

/** Clients of the chain's first RPC URL, which must serve the chain's id. */
async function clientsOf(chain: ChainSettings): Promise<ChainClients> {
  const rpcUrl = requireChainSetting(chain, 'rpcUrls')[0]!;
  const symbol = NETWORKS[chain.network].nativeCurrencySymbol;
  const viemChain: Chain = defineChain({
    id: chain.chainId,
    name: NETWORKS[chain.network].name,
    nativeCurrency: { name: symbol, symbol, decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({
    chain: viemChain,
    transport: http(rpcUrl),
    pollingInterval: 250,
  });
  const actual = await publicClient.getChainId();
  if (actual !== chain.chainId)
    throw new ConfigError(
      `${chain.variablePrefix}RPC_URL serves chain ${actual}, but ${chain.network} is chain ${chain.chainId}`,
    );
  return { rpcUrl, chain: viemChain, publicClient: publicClient as PublicClient };
}

function rowOf(routes: readonly ChainRoute[], chainId: number): ChainRoute {
  const row = routes.find((route) => route.chainId === chainId);
  if (!row) throw new Error(`chain ${chainId} has no row in its own mode's table`);
  return row;
}

/** A row's contracts as they are on its chain: what must hold before a factory promising them is deployed. */
async function rowProblems(
  client: PublicClient,
  row: ChainRoute,
  chain: ChainSettings,
  homeOnly: boolean,
): Promise<string[]> {
  const problems: string[] = [];
  if (!(await holdsCode(client, row.usdc)))
    problems.push(`no contract at its USDC ${row.usdc} (${chain.variablePrefix}USDC_ADDRESS)`);
  // A table of the home row alone burns nowhere: its messenger is informative, and zero where none is known.
  if (homeOnly) return problems;
  if (!(await holdsCode(client, row.tokenMessenger))) {
    problems.push(
      `no contract at its TokenMessengerV2 ${row.tokenMessenger} (${chain.variablePrefix}TOKEN_MESSENGER)`,
    );
    return problems;
  }
  try {
    const transmitter = await client.readContract({
      address: row.tokenMessenger,
      abi: testTokenMessengerV2Abi,
      functionName: 'localMessageTransmitter',
    });
    const domain = await client.readContract({
      address: transmitter,
      abi: testMessageTransmitterV2Abi,
      functionName: 'localDomain',
    });
    if (domain !== row.domain)
      problems.push(`its TokenMessengerV2's transmitter is on domain ${domain}, not ${row.domain}`);
  } catch {
    problems.push(`${row.tokenMessenger} does not answer as a TokenMessengerV2 (localMessageTransmitter)`);
  }
  return problems;
}

/** The deployed factory against the table: its code, its routesHash, and this chain's row. */
async function factoryProblems(
  client: PublicClient,
  factory: Address,
  routesHash: Hex,
  row: ChainRoute,
): Promise<string[]> {
  if (!(await holdsCode(client, factory))) return ['the factory is not deployed'];
  const problems: string[] = [];
  const [deployedHash, route] = await Promise.all([
    client.readContract({ address: factory, abi: forwarderFactoryV3Abi, functionName: 'routesHash' }),
    client.readContract({ address: factory, abi: forwarderFactoryV3Abi, functionName: 'route' }),
  ]);
  if (deployedHash !== routesHash) problems.push(`routesHash ${deployedHash}, not ${routesHash}`);
  const same =
    Number(route.chainId) === row.chainId &&
    route.domain === row.domain &&
    isAddressEqual(route.usdc, row.usdc) &&
    isAddressEqual(route.tokenMessenger, row.tokenMessenger) &&
    route.maxBurnFeeBps === row.maxBurnFeeBps;
  if (!same) problems.push(`its route is not this chain's row of the table`);
  return problems;
}
