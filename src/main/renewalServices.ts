import type { Logger } from 'pino';
import { customerEmails } from '../adapters/email/customerEmails.ts';
import type { Clock } from '../app/shared/ports.ts';
import {
  DEFAULT_RENEWAL_LEAD_MS,
  DEFAULT_RENEWAL_RECHECK_MS,
  type RenewalDeps,
} from '../app/subscriptions/renewal.ts';
import type { Config } from '../config/index.ts';
import { chainViews } from './chains/chainViews.ts';
import type { HomeChain } from './chains/model.ts';
import { renewalPull } from './pullServices.ts';
import { createRates, type createStores, hostResolver } from './wiring.ts';

/* Subscriptions' renewal wiring (decisions 0060, 0061): the worker's job, and the pages that bill a first period. */

/**
 * What the worker's renewal job bills periods with: the API's create pipeline (rates, each mode's deposit
 * planner and token controls) and the payment request e-mail, on the worker's stores.
 */
export function renewalServices(
  config: Config,
  made: {
    readonly stores: ReturnType<typeof createStores>;
    readonly chains: readonly HomeChain[];
    readonly clock: Clock;
    readonly logger: Logger;
  },
): RenewalDeps {
  const { stores, chains, clock, logger } = made;
  const views = chainViews(chains, clock, logger);
  return renewalDeps(config, {
    stores,
    chains,
    views,
    rates: createRates(config, clock, logger),
    clock,
    logger,
  });
}

/** The renewal pipeline on chain views and rates already made (the worker's, or the checkout's). */
export function renewalDeps(
  config: Config,
  made: Pick<RenewalDeps, 'rates' | 'clock' | 'logger'> & {
    readonly stores: ReturnType<typeof createStores>;
    readonly chains: readonly HomeChain[];
    readonly views: ReturnType<typeof chainViews>;
  },
): RenewalDeps {
  const { stores, chains, views, clock, logger } = made;
  const paymentRequests = customerEmails(config, (chainId) => views.explorers.get(chainId))?.paymentRequests;
  return {
    ...stores,
    deposits: views.deposits,
    tokenControls: views.tokenControls,
    rates: made.rates,
    hostResolver,
    clock,
    logger,
    paymentTtlMs: config.paymentTtlMs,
    maxAmountBaseUnits: config.maxAmountBaseUnits,
    minAmountBaseUnits: config.minAmountBaseUnits,
    webhookAllowPrivate: config.webhookAllowPrivate,
    paymentRequests,
    renewalLeadMs: DEFAULT_RENEWAL_LEAD_MS,
    renewalRecheckMs: DEFAULT_RENEWAL_RECHECK_MS,
    // Pull renewal (decision 0061) where a charger is configured: periods with a mandate are charged.
    pull: renewalPull(stores, chains, clock, paymentRequests),
  };
}
