/**
 * The route table of a mode's forwarder factory version 3 (decisions 0028 and 0032), from its chains as
 * configured: the home chain's row first (domain 7, where every burn mints), then each source chain's in the order
 * of PAYLINK_CHAINS or PAYLINK_TEST_CHAINS. The table decides the factory's address, so each row comes from
 * settings only, never from a chain's answers.
 */
import { type Address, encodeAbiParameters, type Hex, keccak256, zeroAddress } from 'viem';
import { type ChainSettings, ConfigError } from '../../config/index.ts';
import { type ChainRoute, type FactoryV3Addresses, predictFactoryV3 } from './multiChainFactory.ts';

/** What a row needs of a chain: its id and CCTP settings, its USDC, and the variables that name them. */
export type RouteChain = Pick<
  ChainSettings,
  'chainId' | 'network' | 'role' | 'mode' | 'variablePrefix' | 'usdcAddress' | 'cctp'
>;

/**
 * The table for a mode's chains (home first), or a ConfigError naming the variable a row lacks. A mode without
 * source chains has a table of its home row alone (decision 0038): that row never burns, so its TokenMessengerV2
 * is informative only, and zero where none is known (a sandbox without its second chain has no CCTP).
 */
export function routeTable(chains: readonly RouteChain[]): ChainRoute[] {
  const homes = chains.filter((chain) => chain.role === 'home');
  if (homes.length !== 1 || chains[0]?.role !== 'home')
    throw new Error('a route table is made of one mode: its home chain first, then its source chains');
  const homeOnly = chains.length === 1;
  return chains.map((chain) => {
    const missing = (variable: string): never => {
      throw new ConfigError(
        `Invalid configuration:\n  ${chain.variablePrefix}${variable} is required on ${chain.network} to make the ${chain.mode} mode's route table`,
      );
    };
    const cctp = chain.cctp ?? missing('TOKEN_MESSENGER');
    return {
      chainId: chain.chainId,
      domain: cctp.domain,
      usdc: chain.usdcAddress ?? missing('USDC_ADDRESS'),
      tokenMessenger: cctp.tokenMessenger ?? (homeOnly ? zeroAddress : missing('TOKEN_MESSENGER')),
      maxBurnFeeBps: chain.role === 'home' ? 0 : cctp.maxFeeBps,
    };
  });
}

const routeComponents = [
  { name: 'chainId', type: 'uint64' },
  { name: 'domain', type: 'uint32' },
  { name: 'usdc', type: 'address' },
  { name: 'tokenMessenger', type: 'address' },
  { name: 'maxBurnFeeBps', type: 'uint16' },
] as const;

/** ForwarderFactoryV3.routesHash: keccak256(abi.encode(routes)), what a deployed factory is compared with. */
export function routesHashOf(routes: readonly ChainRoute[]): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'tuple[]', components: routeComponents }],
      [routes.map((route) => ({ ...route, chainId: BigInt(route.chainId) }))],
    ),
  );
}

/** The table as one line per row, for messages that must say which table was expected. */
export function describeRoutes(routes: readonly ChainRoute[]): string {
  return routes
    .map(
      (route) =>
        `chain ${route.chainId} (domain ${route.domain}, USDC ${route.usdc}, TokenMessengerV2 ${route.tokenMessenger}, fee cap ${route.maxBurnFeeBps} bps)`,
    )
    .join('; ');
}

/**
 * The factory a mode must use for new payments: the one of its table, the same address on each of its chains (a
 * mode without source chains: its home row's alone).
 */
export async function expectedFactoryV3(
  chains: readonly RouteChain[],
): Promise<FactoryV3Addresses & { routes: ChainRoute[]; routesHash: Hex }> {
  const routes = routeTable(chains);
  return { ...(await predictFactoryV3(routes)), routes, routesHash: routesHashOf(routes) };
}

/**
 * Refuses a configured factory that is not the table's: its deposit addresses would not be the same on the mode's
 * chains, or would promise other routes. The message says which table, and which address, it expected.
 */
export function refuseOtherFactory(
  home: Pick<ChainSettings, 'variablePrefix' | 'mode'>,
  configured: Address | undefined,
  expected: { factory: Address; routes: readonly ChainRoute[]; routesHash: Hex },
): void {
  if (configured === undefined || configured.toLowerCase() === expected.factory.toLowerCase()) return;
  throw new ConfigError(
    `Invalid configuration:\n  ${home.variablePrefix}FACTORY_ADDRESS is ${configured}, but the ${home.mode} mode's chains need the version 3 factory of their route table, ${expected.factory} (routesHash ${expected.routesHash}: ${describeRoutes(expected.routes)}); deploy it with paylink contracts deploy${home.mode === 'test' ? ' --mode test' : ''}`,
  );
}
