import { describe, expect, it } from 'vitest';
import { mapValueOrPromise, mustWait } from './valueOrPromise.ts';

describe('mapValueOrPromise', () => {
  it('goes on at once with a value at hand, and after the wait with a promise', async () => {
    const now = mapValueOrPromise(2, (n) => n * 10);
    expect(mustWait(now)).toBe(false);
    expect(now).toBe(20);
    const later = mapValueOrPromise(Promise.resolve(3), (n) => n * 10);
    expect(mustWait(later)).toBe(true);
    expect(await later).toBe(30);
  });

  it('turns a throw in the next step into a rejection, so failure has one form', async () => {
    const failed = mapValueOrPromise(1, () => {
      throw new Error('refused');
    });
    expect(mustWait(failed)).toBe(true);
    await expect(failed).rejects.toThrow('refused');
  });
});
