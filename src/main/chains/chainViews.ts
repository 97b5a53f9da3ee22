import type { Logger } from 'pino';
import { chainReader, createRpcClient } from '../../adapters/chain/chainReader.ts';
import { depositPlanner } from '../../adapters/chain/depositPlanner.ts';
import { createTokenControls } from '../../adapters/chain/tokenControls.ts';
import type { CheckoutNetwork } from '../../adapters/web/network.ts';
import type { TokenControls } from '../../app/chain/tokenControls.ts';
import type { Clock } from '../../app/shared/ports.ts';
import { NETWORKS } from '../../config/index.ts';
import { everyChain, type HomeChain, homeChainOfMode, type SourceChain } from './model.ts';

/**
 * What the API and the checkout need of each chain, built from the one list: the deposit planner and the token's
 * controls of each mode, the explorers and the checkout's networks by chain id, and the probes /readyz and
 * /metrics read (the test chain's only where it is another chain than the live one).
 */
export function chainViews(chains: readonly HomeChain[], clock: Clock, logger: Logger) {
  const probe = (chain: HomeChain) => ({
    chainId: chain.target.chainId,
    reader: chainReader(createRpcClient(chain.rpcUrls, 2_000), chain.settings.finality),
  });
  const testOnly = chains.find((chain) => !chain.modes.includes('live'));
  const payable = everyChain(chains);
  return {
    deposits: byMode(chains, (chain) => depositPlanner(chain.target)),
    tokenControls: byMode(chains, (chain) => tokenControlsOf(chain, clock, logger)),
    // The dashboard links transactions to each chain's explorer (the sandbox has none).
    explorers: new Map(
      payable.map((chain) => [chain.target.chainId, NETWORKS[chain.settings.network].explorerUrl]),
    ),
    // The health page states each relayer's balance in its chain's own token (ETH, POL, AVAX).
    nativeSymbols: new Map(
      payable.map((chain) => [chain.target.chainId, NETWORKS[chain.settings.network].nativeCurrencySymbol]),
    ),
    // The point of sale names the chain under its QR code ("Polygon", "Sandbox (local anvil)").
    networkNames: new Map(
      payable.map((chain) => [chain.target.chainId, NETWORKS[chain.settings.network].name]),
    ),
    checkoutNetworks: payable.map(checkoutNetwork),
    chainProbe: probe(byMode(chains, (chain) => chain).live),
    testChainProbe: testOnly && probe(testOnly),
  };
}

/** One `make` of the live chain and of the test chain (undefined when test mode is off), as the use cases take them. */
function byMode<T>(
  chains: readonly HomeChain[],
  make: (chain: HomeChain) => T,
): { live: T; test: T | undefined } {
  const live = homeChainOfMode(chains, 'live');
  if (!live) throw new Error('no live chain');
  const test = homeChainOfMode(chains, 'test');
  return { live: make(live), test: test && make(test) };
}

function checkoutNetwork(chain: HomeChain | SourceChain): CheckoutNetwork {
  const { network, publicRpcUrl: configured } = chain.settings;
  const preset = NETWORKS[network];
  // PAYLINK_PUBLIC_RPC_URL, else the preset's; the sandbox's own nodes are on this machine, like the browser.
  const local = network === 'sandbox' || network === 'sandbox-2';
  const publicRpcUrl = configured ?? (local ? chain.rpcUrls[0] : preset.publicRpcUrl);
  return {
    name: preset.name,
    chainId: chain.target.chainId,
    explorerUrl: preset.explorerUrl,
    ...(publicRpcUrl ? { publicRpcUrl } : {}),
    nativeCurrencySymbol: preset.nativeCurrencySymbol,
  };
}

/** The token's blacklist and pause, read with a short timeout: checked on the create path. */
function tokenControlsOf(chain: HomeChain, clock: Clock, logger: Logger): TokenControls {
  return createTokenControls({
    client: createRpcClient(chain.rpcUrls, 2_000),
    token: chain.target.tokenAddress,
    clock,
    logger,
  });
}
