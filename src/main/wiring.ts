import type { Logger } from 'pino';
import { brandRepository } from '../adapters/db/brandRepository.ts';
import { bridgeRepository } from '../adapters/db/bridgeRepository.ts';
import { chainCancelRepository } from '../adapters/db/chainCancelRepository.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../adapters/db/database.ts';
import { emailRepository } from '../adapters/db/emailRepository.ts';
import { eventRepository } from '../adapters/db/eventRepository.ts';
import { gaslessRepository } from '../adapters/db/gaslessRepository.ts';
import { idempotencyRepository } from '../adapters/db/idempotencyRepository.ts';
import { ledgerRepository } from '../adapters/db/ledgerRepository.ts';
import { linkRepository } from '../adapters/db/linkRepository.ts';
import { mandateRepository } from '../adapters/db/mandateRepository.ts';
import { merchantRepository } from '../adapters/db/merchantRepository.ts';
import { monitoringRepository } from '../adapters/db/monitoringRepository.ts';
import { overviewRepository } from '../adapters/db/overviewRepository.ts';
import { paymentRepository, receiptPageRepository } from '../adapters/db/paymentRepository.ts';
import { posCatalogueRepository } from '../adapters/db/posCatalogueRepository.ts';
import { receiptTokenRepository } from '../adapters/db/receiptTokens.ts';
import { refundRepository } from '../adapters/db/refundRepository.ts';
import { settlementRepository } from '../adapters/db/settlementRepository.ts';
import { subscriptionRepository } from '../adapters/db/subscriptionRepository.ts';
import { userRepository } from '../adapters/db/userRepository.ts';
import { webhookEndpointRepository } from '../adapters/db/webhookEndpointRepository.ts';
import { webhookRepository } from '../adapters/db/webhookRepository.ts';
import { x402Repository } from '../adapters/db/x402Repository.ts';
import { systemHostResolver } from '../adapters/outbound/hostResolver.ts';
import { type ClosableWebhookSender, createWebhookSender } from '../adapters/outbound/webhookSender.ts';
import { coinbaseSource } from '../adapters/rates/coinbase.ts';
import { coingeckoSource } from '../adapters/rates/coingecko.ts';
import { marketRates } from '../adapters/rates/marketRates.ts';
import type { RateSource } from '../adapters/rates/rateSource.ts';
import { staticSource } from '../adapters/rates/static.ts';
import type { RateProvider } from '../app/payments/ports.ts';
import type { Clock } from '../app/shared/ports.ts';
import type { DispatchWebhooksDeps } from '../app/webhooks/dispatchWebhooks.ts';
import type { HostResolver, WebhookStore } from '../app/webhooks/ports.ts';
import type { Config } from '../config/index.ts';

/** Builds the adapters a configuration names; every entry point wires through here. */
export function createRates(config: Config, clock: Clock, logger: Logger): RateProvider {
  const now = () => clock.now();
  const sources: RateSource[] = config.rates.sources.map((source) => {
    switch (source.kind) {
      case 'static':
        return staticSource(source.usdcPerUnit, now);
      case 'coinbase':
        return coinbaseSource(source.baseUrl, now);
      case 'coingecko':
        return coingeckoSource(source.baseUrl);
      default:
        throw new Error(`unknown rate source ${(source satisfies never as { kind: string }).kind}`);
    }
  });
  return marketRates({ ...config.rates, sources, clock, logger });
}

export function createStores(handle: DatabaseHandle) {
  const refunds = refundRepository(handle);
  return {
    merchants: merchantRepository(handle.db),
    brands: brandRepository(handle.db),
    payments: paymentRepository(handle),
    ledger: ledgerRepository(handle),
    settlements: settlementRepository(handle),
    bridgeTransfers: bridgeRepository(handle),
    idempotency: idempotencyRepository(handle),
    webhooks: webhookRepository(handle),
    webhookEndpoints: webhookEndpointRepository(handle.db),
    events: eventRepository(handle.db),
    monitoring: monitoringRepository(handle.db),
    overview: overviewRepository(handle.db),
    gaslessAuthorizations: gaslessRepository(handle),
    x402Payments: x402Repository(handle),
    refunds,
    links: linkRepository(handle),
    subscriptions: subscriptionRepository(handle),
    mandates: mandateRepository(handle),
    chainCancels: chainCancelRepository(handle),
    posCatalogue: posCatalogueRepository(handle),
    receiptTokens: receiptTokenRepository(handle.db),
    users: userRepository(handle.db),
    emails: emailRepository(handle),
    // The PDF receipt lists the refunds of the payment too (decision 0048).
    receiptPages: { ...receiptPageRepository(handle), refundsOf: refunds.listForPayment },
  };
}

/** Resolves webhook host names when they are configured, to refuse internal ones early. */
export const hostResolver: HostResolver = systemHostResolver();

/**
 * What `dispatchWebhooks` / `runWebhookDispatcher` need. `sender.close()` on shutdown drops idle connections.
 */
export function createWebhookDispatcherDeps(
  config: Config,
  deps: { webhooks: WebhookStore; clock: Clock; logger: Logger },
): DispatchWebhooksDeps & { sender: ClosableWebhookSender } {
  return {
    webhooks: deps.webhooks,
    clock: deps.clock,
    logger: deps.logger,
    sender: createWebhookSender({
      allowPrivate: config.webhookAllowPrivate,
      timeoutMs: config.webhooks.timeoutMs,
    }),
    config: { retryScheduleMs: config.webhooks.retryScheduleMs, leaseMs: config.webhooks.leaseMs },
  };
}

export function openConfiguredDatabase(config: Config): DatabaseHandle {
  return openDatabase(config.databaseUrl);
}

/** For a CLI command: opens the database (migrated), runs one operation on its stores, closes it. */
export async function withStores<T>(
  config: Config,
  run: (stores: ReturnType<typeof createStores>) => Promise<T>,
): Promise<T> {
  const database = openConfiguredDatabase(config);
  try {
    await migrateToLatest(database.db);
    return await run(createStores(database));
  } finally {
    await database.close();
  }
}
