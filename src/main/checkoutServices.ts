import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { createRpcClient } from '../adapters/chain/chainReader.ts';
import { holdsCode } from '../adapters/chain/contractCode.ts';
import { authorizationChain } from '../adapters/chain/eip3009.ts';
import type { CheckoutGasless } from '../adapters/checkout/gaslessRoutes.ts';
import type { ModeNetworks, NetworkCandidate } from '../adapters/checkout/paymentNetworks.ts';
import type { CheckoutRefunds } from '../adapters/checkout/refundRoutes.ts';
import { memoryBucketStore } from '../adapters/rateLimit/memoryBucketStore.ts';
import type { CheckoutNetwork } from '../adapters/web/network.ts';
import { acceptAuthorization, gaslessAmountDue } from '../app/gasless/acceptAuthorization.ts';
import type { AuthorizationChain } from '../app/gasless/ports.ts';
import type { DepositPlanners } from '../app/payments/ports.ts';
import type { Clock, RateLimitStore } from '../app/shared/ports.ts';
import { everyChain, type HomeChain } from './chains/model.ts';
import type { createStores } from './wiring.ts';

/* The checkout's own dependencies, made for `webServices` (services.ts): gasless payment, refund claims, networks. */

/**
 * Gasless payment on the chains whose gasless relayer has a key (decision 0012), or undefined where none has.
 * Submissions are rate limited in `buckets` (`rateLimitBuckets`).
 */
export function checkoutGasless(
  stores: ReturnType<typeof createStores>,
  chains: readonly HomeChain[],
  clock: Clock,
  logger: Logger,
  limits: { readonly buckets: RateLimitStore; readonly minValueBaseUnits: bigint },
): CheckoutGasless | undefined {
  const offered = new Map<number, AuthorizationChain>();
  // Home chains and their source chains alike: a customer signs on the network they chose (decision 0012).
  for (const chain of everyChain(chains)) {
    if (!chain.gaslessRelayerKey || offered.has(chain.target.chainId)) continue;
    const relayerAddress = privateKeyToAccount(chain.gaslessRelayerKey).address;
    const client = createRpcClient(chain.rpcUrls, 2_000);
    offered.set(chain.target.chainId, authorizationChain(client, chain.target.chainId, relayerAddress));
  }
  if (offered.size === 0) return undefined;
  const deps = {
    payments: stores.payments,
    ledger: stores.ledger,
    gasless: stores.gaslessAuthorizations,
    chains: [...offered.values()],
    clock,
    minValueBaseUnits: limits.minValueBaseUnits,
  };
  return {
    async domainFor(chainId, token) {
      try {
        return await offered.get(chainId)?.domainOf(token);
      } catch (error) {
        // A node that does not answer: the page offers the transfer with gas meanwhile.
        logger.warn({ err: error, chainId }, 'could not read the token’s EIP-712 domain');
        return undefined;
      }
    },
    accept: (input) => acceptAuthorization(deps, input),
    amountDue: (payment) => gaslessAmountDue(deps, payment),
    buckets: limits.buckets,
  };
}

/**
 * Refund claim pages: the same checks and planning as the merchant API's, and a look at the chain for code at
 * the address (the page warns before a contract). Claims are rate limited in this process's memory.
 */
export function checkoutRefunds(
  stores: ReturnType<typeof createStores>,
  deposits: DepositPlanners,
  chains: readonly HomeChain[],
  clock: Clock,
): CheckoutRefunds {
  const clients = new Map<number, ReturnType<typeof createRpcClient>>();
  for (const chain of chains)
    if (!clients.has(chain.target.chainId))
      clients.set(chain.target.chainId, createRpcClient(chain.rpcUrls, 2_000));
  return {
    claim: { refunds: stores.refunds, deposits, clock },
    async isContract(chainId, address) {
      const client = clients.get(chainId);
      if (!client) throw new Error(`no RPC client for chain ${chainId}`);
      return holdsCode(client, address);
    },
    buckets: memoryBucketStore(),
  };
}

/**
 * The networks each payment's page offers (paymentNetworks.ts, decision 0033): per home chain, that chain then
 * its source chains, and the home chain's version 3 factory (the only one whose addresses exist on all of them).
 * `networks` are the checkout's view of every chain (chainViews.ts).
 */
export function checkoutModeNetworks(
  chains: readonly HomeChain[],
  networks: readonly CheckoutNetwork[],
): ModeNetworks[] {
  return chains.map((home) => ({
    v3FactoryAddress: home.target.forwarderVersion === 3 ? home.target.factoryAddress : undefined,
    chains: [home, ...home.sources].map((chain): NetworkCandidate => {
      const network = networks.find((n) => n.chainId === chain.target.chainId);
      return {
        chainId: chain.target.chainId,
        name: network?.name ?? `Chain ${chain.target.chainId}`,
        role: chain.settings.role,
        usdcAddress: chain.target.tokenAddress,
        publicRpcUrl: network?.publicRpcUrl,
        explorerUrl: network?.explorerUrl ?? '',
        nativeCurrencySymbol: network?.nativeCurrencySymbol,
        // Where its gasless relayer has a key (checkoutGasless above), home or source.
        gasless: chain.gaslessRelayerKey !== undefined,
        // A standard transfer is free whatever the cap: its bound before the burn is 0 (decision 0029).
        ...(chain.settings.role === 'source' && chain.settings.cctp
          ? {
              cctp: {
                speed: chain.settings.cctp.transferSpeed,
                maxFeeBps: chain.settings.cctp.transferSpeed === 'fast' ? chain.settings.cctp.maxFeeBps : 0,
              },
            }
          : {}),
      };
    }),
  }));
}
