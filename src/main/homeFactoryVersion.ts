/**
 * The factory new payments of a home chain use, and its forwarder version (decision 0038).
 *
 * Which forwarder version the configured factory of a mode without source chains deploys: the
 * service computes deposit addresses without asking the chain, and versions 2 and 3 have different address
 * formulas, so it must know before it gives the first address.
 *
 * - The factory of the mode's own table (its home row alone), what `paylink contracts deploy` deploys: version 3,
 *   known from the configuration alone.
 * - Any other factory (a deployment made before version 3 for every mode, still configured with its version 2
 *   factory; or a factory deployed for another table): its `VERSION()` read from the chain, once, at start. A
 *   deposit address predicted with the wrong formula is money nobody can move, so a chain that does not answer
 *   stops the start rather than let it guess.
 */
import type { Logger } from 'pino';
import { type Address, createPublicClient, http, isAddressEqual, type PublicClient } from 'viem';
import type { ChainTarget } from '../adapters/chain/depositPlanner.ts';
import { readForwarderVersion } from '../adapters/chain/flushCalls.ts';
import type { ForwarderAddressVersion } from '../adapters/chain/forwarder.ts';
import { expectedFactoryV3, routeTable } from '../adapters/chain/routeTable.ts';
import { StartRefusedError } from '../adapters/web/freePorts.ts';
import { type ChainMode, type ChainSettings, type Config, chainsOfMode } from '../config/index.ts';
import { ensureSandboxFactoryV3, type SandboxChain } from '../sandbox/chain.ts';
import type { SandboxCrossChain } from '../sandbox/crossChain.ts';

/**
 * The version of `factory`, configured as the home chain's of `settings.mode`, with no source chains. `usdc` is
 * the home chain's USDC as resolved (a sandbox may have deployed its own, which no setting names).
 */
export async function homeForwarderVersion(
  config: Config,
  settings: ChainSettings,
  chain: { factory: Address; usdc: Address; rpcUrl: string },
  logger: Logger,
): Promise<ForwarderAddressVersion> {
  const { factory, rpcUrl } = chain;
  const chains = chainsOfMode(config.chains, settings.mode).map((c) =>
    c.role === 'home' ? { ...c, usdcAddress: c.usdcAddress ?? chain.usdc } : c,
  );
  const expected = await expectedFactoryV3(chains);
  if (isAddressEqual(expected.factory, factory)) return 3;
  const client = createPublicClient({ transport: http(rpcUrl) }) as PublicClient;
  let version: ForwarderAddressVersion;
  try {
    version = await readForwarderVersion(client, factory);
  } catch (error) {
    throw new StartRefusedError(
      `${settings.variablePrefix}FACTORY_ADDRESS ${factory}: its forwarder version could not be read from ${settings.variablePrefix}RPC_URL (${error instanceof Error ? error.message.split('\n')[0] : String(error)}), and deposit addresses depend on it`,
    );
  }
  if (version === 3) {
    // Its deposit addresses are still right (they follow from the factory alone); whether its route on this
    // chain flushes is what `paylink contracts check` reports.
    logger.warn(
      { factory, expected: expected.factory, mode: settings.mode },
      'the configured version 3 factory is not the one of this configuration’s route table: run paylink contracts check',
    );
  } else {
    logger.info(
      { factory, version, upgrade: expected.factory, mode: settings.mode },
      'new payments use the configured version 2 factory: paylink contracts deploy gives the version 3 one',
    );
  }
  return version;
}

export function modeHasSourceChains(config: Config, mode: ChainMode): boolean {
  return chainsOfMode(config.chains, mode).some((chain) => chain.role === 'source');
}

/**
 * The factory of a sandbox that deploys its own contracts, and its forwarder version: the second chain's
 * (version 3, its table's); a configured one (its version read as on Polygon); else the version 3 factory of this
 * chain's table alone, deployed here at start (idempotent: the same table is the same address).
 */
export async function sandboxFactory(
  sandbox: SandboxChain,
  crossChain: SandboxCrossChain | undefined,
  chain: ChainSettings,
  tokenAddress: Address,
  config: Config,
  logger: Logger,
): Promise<Pick<ChainTarget, 'factoryAddress' | 'forwarderVersion'>> {
  if (chain.factoryAddress) {
    const forwarderVersion = modeHasSourceChains(config, chain.mode)
      ? 3
      : await homeForwarderVersion(
          config,
          chain,
          { factory: chain.factoryAddress, usdc: tokenAddress, rpcUrl: sandbox.rpcUrl },
          logger,
        );
    return { factoryAddress: chain.factoryAddress, forwarderVersion };
  }
  if (crossChain) return { factoryAddress: crossChain.factory, forwarderVersion: 3 };
  const routes = routeTable([{ ...chain, usdcAddress: tokenAddress }]);
  return { factoryAddress: await ensureSandboxFactoryV3(sandbox.rpcUrl, routes), forwarderVersion: 3 };
}
