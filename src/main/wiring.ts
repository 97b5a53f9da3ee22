import type { Logger } from 'pino';
import { type DatabaseHandle, openDatabase } from '../adapters/db/database.ts';
import { ledgerRepository } from '../adapters/db/ledgerRepository.ts';
import { merchantRepository } from '../adapters/db/merchantRepository.ts';
import { paymentRepository } from '../adapters/db/paymentRepository.ts';
import { coinbaseSource } from '../adapters/rates/coinbase.ts';
import { coingeckoSource } from '../adapters/rates/coingecko.ts';
import { marketRates } from '../adapters/rates/marketRates.ts';
import type { RateSource } from '../adapters/rates/rateSource.ts';
import { staticSource } from '../adapters/rates/static.ts';
import type { Clock, RateProvider } from '../app/ports.ts';
import type { Config } from '../config.ts';

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
  return {
    merchants: merchantRepository(handle.db),
    payments: paymentRepository(handle.db),
    ledger: ledgerRepository(handle),
  };
}

export function openConfiguredDatabase(config: Config): DatabaseHandle {
  return openDatabase(config.databaseUrl);
}
