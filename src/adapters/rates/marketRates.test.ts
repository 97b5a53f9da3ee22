import { describe, expect, it } from 'vitest';
import { PaylinkError } from '../../domain/errors.ts';
import { marketRates } from './marketRates.ts';
import { staticSource } from './static.ts';

const clock = { now: () => new Date(1_700_000_000_000) };
const silent = { warn: () => undefined };

function rates(tables: Record<string, string>[]) {
  return marketRates({
    sources: tables.map((table, i) => ({ ...staticSource(table, clock.now), name: `static${i}` })),
    clock,
    cacheTtlMs: 60_000,
    maxAgeMs: 300_000,
    maxSpreadBps: 100,
    timeoutMs: 1_000,
    logger: silent,
  });
}

describe('marketRates', () => {
  it('waits for the first tables, then answers at once with the same agreed rate while it holds', async () => {
    const provider = rates([{ EUR: '1.08' }]);
    const first = provider.usdcPerUnit('EUR');
    expect(first).toBeInstanceOf(Promise);
    const agreed = await first;
    expect(agreed.usdcPerUnit).toStrictEqual({ units: 108_000_000n, scale: 8 });
    const again = provider.usdcPerUnit('eur');
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toBe(agreed);
  });

  it('refuses with a rejection, never a throw, even when the tables are at hand', async () => {
    const provider = rates([{ EUR: '1.08' }, { EUR: '0.90' }]);
    await expect(Promise.resolve(provider.usdcPerUnit('EUR'))).rejects.toBeInstanceOf(PaylinkError);
    // The tables are fresh now: nothing to wait for, and still no throw.
    const refused = provider.usdcPerUnit('EUR');
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ code: 'RATE_UNAVAILABLE' });
  });
});
