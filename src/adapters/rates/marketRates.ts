import type { Logger } from 'pino';
import type { RateProvider } from '../../app/payments/ports.ts';
import type { Clock } from '../../app/shared/ports.ts';
import { mapValueOrPromise } from '../../app/shared/valueOrPromise.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { type AgreedRate, agreeOnRate, type RateObservation } from '../../domain/rates.ts';
import type { RateSource, RateTable } from './rateSource.ts';

export interface MarketRatesOptions {
  readonly sources: readonly RateSource[];
  readonly clock: Clock;
  /** How long a source's table is reused before it is asked again. */
  readonly cacheTtlMs: number;
  /** How old an observation may be and still count. */
  readonly maxAgeMs: number;
  /** The most the highest fresh rate may exceed the lowest, in basis points of the lowest. */
  readonly maxSpreadBps: number;
  readonly timeoutMs: number;
  readonly logger: Pick<Logger, 'warn'>;
}

interface CacheEntry {
  table?: RateTable;
  fetchedAtMs: number;
  inFlight?: Promise<void>;
}

/**
 * Rates from every configured source, each cached for `cacheTtlMs` with one request in flight at most, agreed
 * by median. A source that fails keeps its last table until that is too old to count.
 */
export function marketRates(options: MarketRatesOptions): RateProvider {
  const cache = new Map<string, CacheEntry>(options.sources.map((s) => [s.name, { fetchedAtMs: -Infinity }]));
  /**
   * The agreed rate per currency, for as long as it would come out the same: until a source's table changes, or
   * the oldest observation it rests on grows too old. Every convert and create asks; most ask within the TTL.
   */
  let tablesVersion = 0;
  const agreedRates = new Map<string, { agreed: AgreedRate; version: number; validUntilMs: number }>();

  function refresh(source: RateSource, entry: CacheEntry): Promise<void> {
    entry.inFlight ??= source
      .fetchTable(AbortSignal.timeout(options.timeoutMs))
      .then((table) => {
        entry.table = table;
        tablesVersion += 1;
      })
      .catch((error: unknown) => {
        options.logger.warn(
          { source: source.name, err: error },
          'rate source failed; keeping its last answer',
        );
      })
      .finally(() => {
        entry.fetchedAtMs = options.clock.now().getTime();
        delete entry.inFlight;
      });
    return entry.inFlight;
  }

  /** The agreed rate from the tables as they are now; throws RATE_UNAVAILABLE when they agree on none. */
  function agreedFromTables(code: string): AgreedRate {
    const known = agreedRates.get(code);
    if (known && known.version === tablesVersion && options.clock.now().getTime() <= known.validUntilMs) {
      return known.agreed;
    }
    const observations: RateObservation[] = [];
    for (const source of options.sources) {
      const table = cache.get(source.name)?.table;
      const usdcPerUnit = table?.usdcPerUnit.get(code);
      if (table && usdcPerUnit)
        observations.push({ source: source.name, usdcPerUnit, observedAt: table.observedAt });
    }
    const agreed = agreeOnRate(observations, {
      now: options.clock.now(),
      maxAgeMs: options.maxAgeMs,
      maxSpreadBps: options.maxSpreadBps,
    });
    if ('reason' in agreed) {
      if (agreed.reason === 'diverged') {
        options.logger.warn(
          { currency: code, spreadBps: agreed.spreadBps.toString() },
          'rate sources disagree',
        );
      }
      throw new PaylinkError(
        'RATE_UNAVAILABLE',
        `No reliable ${code} to USDC rate is available right now; try again shortly`,
      );
    }
    // Every observation it rests on stays fresh until the oldest of them is maxAge old.
    agreedRates.set(code, {
      agreed,
      version: tablesVersion,
      validUntilMs: agreed.observedAt.getTime() + options.maxAgeMs,
    });
    return agreed;
  }

  return {
    usdcPerUnit(currencyCode) {
      const code = currencyCode.toUpperCase();
      const nowMs = options.clock.now().getTime();
      // Every table fresh, as for almost every call: nothing to wait for, and the rate is answered at once.
      let pending: Promise<void>[] | undefined;
      for (const source of options.sources) {
        const entry = cache.get(source.name)!;
        const waiting =
          nowMs - entry.fetchedAtMs >= options.cacheTtlMs ? refresh(source, entry) : entry.inFlight;
        if (waiting) {
          pending ??= [];
          pending.push(waiting);
        }
      }
      return mapValueOrPromise(pending && Promise.all(pending), () => agreedFromTables(code));
    },
  };
}
