import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './timeOrderedId.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit millisecond timestamp at the front of a UUIDv7. */
const millisecondsOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('timeOrderedId', () => {
  it('is a UUIDv7 of the current millisecond', () => {
    const before = Date.now();
    const id = timeOrderedId();
    const after = Date.now();
    expect(id).toMatch(UUID_V7);
    expect(millisecondsOf(id)).toBeGreaterThanOrEqual(before);
    expect(millisecondsOf(id)).toBeLessThanOrEqual(after);
  });

  it('never repeats, across many refills of its pool of random bytes', () => {
    const ids = Array.from({ length: 5_000 }, timeOrderedId);
    expect(new Set(ids).size).toBe(ids.length);
    // The random part (all but the timestamp and the version) differs between neighbours too: a pool handed
    // out twice, or not refilled, would repeat it.
    const randomParts = ids.map((id) => id.replaceAll('-', '').slice(13));
    expect(new Set(randomParts).size).toBe(ids.length);
  });

  it('sorts by time: an id made a millisecond later sorts after', async () => {
    const first = timeOrderedId();
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = timeOrderedId();
    expect([second, first].sort()).toEqual([first, second]);
  });
});
