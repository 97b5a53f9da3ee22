import type { PublicClient } from 'viem';
import { chainReader, createRpcClient } from '../adapters/chain/chainReader.ts';
import { allowanceLeft, chargerCalls } from '../adapters/chain/subscriptionCharger.ts';
import type { CheckoutMandates } from '../adapters/checkout/mandateRoutes.ts';
import type { PaymentRequestSettings } from '../app/email/paymentRequests.ts';
import type { Relayer } from '../app/settlement/ports.ts';
import type { Clock, RateLimitStore } from '../app/shared/ports.ts';
import type { ChainCancelStore } from '../app/subscriptions/chainCancels.ts';
import { mandateRequest, pullChainOf, submitMandate, switchToPush } from '../app/subscriptions/mandates.ts';
import {
  fallbackOnFailure,
  type PullChain,
  type PullRenewal,
  pullRenewal,
} from '../app/subscriptions/pullCharges.ts';
import type { RelayChargesDeps } from '../app/subscriptions/relayCharges.ts';
import type { PayoutPolicy } from '../domain/payout.ts';
import type { HomeChain } from './chains/model.ts';
import type { createStores } from './wiring.ts';

/* Pull renewal's wiring (decision 0061): where each mode's subscriptions are charged, its routes and its relayer. */

type Stores = ReturnType<typeof createStores>;

/**
 * Per mode, its home chain's charger, where one is configured (PAYLINK_SUBSCRIPTION_CHARGER) or the sandbox
 * deployed it, and a gasless
 * relayer key pays the charges' gas; a mode without one renews by push alone.
 */
export function pullChains(chains: readonly HomeChain[]): Partial<Record<'live' | 'test', PullChain>> {
  const byMode: Partial<Record<'live' | 'test', PullChain>> = {};
  for (const chain of chains) {
    const charger = chain.settings.subscriptionCharger ?? chain.subscriptionCharger;
    if (!charger || !chain.gaslessRelayerKey) continue;
    for (const mode of chain.modes)
      byMode[mode] = {
        chainId: chain.target.chainId,
        charger,
        token: chain.target.tokenAddress,
        treasury: chain.target.treasuryAddress,
      };
  }
  return byMode;
}

function pullDeps(
  stores: Stores,
  chains: readonly HomeChain[],
  clock: Clock,
  paymentRequests?: PaymentRequestSettings,
) {
  return {
    mandates: stores.mandates,
    payments: stores.payments,
    subscriptions: stores.subscriptions,
    merchants: stores.merchants,
    paymentRequests,
    clock,
    chains: pullChains(chains),
  };
}

/** The renewal job's pull step, where any mode has a charger. */
export function renewalPull(
  stores: Stores,
  chains: readonly HomeChain[],
  clock: Clock,
  paymentRequests: PaymentRequestSettings | undefined,
): PullRenewal | undefined {
  const deps = pullDeps(stores, chains, clock, paymentRequests);
  return Object.keys(deps.chains).length > 0 ? pullRenewal(deps) : undefined;
}

/** The checkout's mandate routes (`/subscriptions/:token/mandate`), where any mode has a charger. */
export function checkoutMandates(
  stores: Stores,
  chains: readonly HomeChain[],
  clock: Clock,
  buckets: RateLimitStore,
): CheckoutMandates | undefined {
  const deps = pullDeps(stores, chains, clock);
  if (Object.keys(deps.chains).length === 0) return undefined;
  // The portal reads the wallet's allowance of the charger from the mandate's chain, briefly (a page waits).
  const clients = new Map(chains.map((c) => [c.target.chainId, createRpcClient(c.rpcUrls, 2_000)]));
  return {
    request: (token) => mandateRequest(deps, token),
    submit: (token, body) => submitMandate(deps, token, body),
    chainOf: (mode) => pullChainOf(deps, mode),
    mandateOf: (id) => deps.mandates.findMandate(id),
    switchToPush: (token) => switchToPush(deps, token),
    allowanceLeft: async (mandate) => {
      const client = clients.get(mandate.chainId);
      return client && allowanceLeft(client, mandate);
    },
    buckets,
  };
}

/** The gasless relayer's charges on its chain, where a mode is charged there; else undefined. */
export function chargeRelaying(
  made: {
    readonly stores: Stores;
    readonly chains: readonly HomeChain[];
    readonly clock: Clock;
    readonly payoutPolicy: PayoutPolicy;
    readonly paymentRequests?: PaymentRequestSettings | undefined;
    readonly logger: RelayChargesDeps['logger'];
  },
  chainId: number,
  client: PublicClient,
  relayer: RelayChargesDeps['relayer'] & Pick<Relayer, 'address'>,
): RelayChargesDeps | undefined {
  const deps = pullDeps(made.stores, made.chains, made.clock, made.paymentRequests);
  const home = made.chains.find((c) => c.target.chainId === chainId);
  if (!home || !Object.values(deps.chains).some((c) => c?.chainId === chainId)) return undefined;
  return {
    mandates: made.stores.mandates,
    relayer,
    charger: chargerCalls(client, chainId),
    // The watcher's rule for deposits (PAYLINK_FINALITY): a charge is applied once final by it.
    finality: chainReader(client, home.settings.finality),
    payments: made.stores.payments,
    ledger: made.stores.ledger,
    subscriptions: made.stores.subscriptions,
    clock: made.clock,
    payoutPolicy: made.payoutPolicy,
    logger: made.logger,
    onFailed: fallbackOnFailure(deps),
  };
}

/**
 * The charger whose `Canceled` logs the worker reads on this chain (mandates canceled on chain, decision 0061), where
 * a mode is charged there; else undefined.
 */
export function chainCancelWatching(
  stores: Stores,
  chains: readonly HomeChain[],
  chainId: number,
): { readonly store: ChainCancelStore; readonly charger: string } | undefined {
  const chain = Object.values(pullChains(chains)).find((c) => c?.chainId === chainId);
  return chain && { store: stores.chainCancels, charger: chain.charger };
}
