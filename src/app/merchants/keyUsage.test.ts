import { describe, expect, it } from 'vitest';
import { KEY_USE_INTERVAL_MS, keyUsageRecorder } from './keyUsage.ts';

/** A clock the test moves by hand. */
function handClock() {
  let ms = Date.parse('2026-11-25T10:00:00.000Z');
  return {
    now: () => new Date(ms),
    advance: (by: number) => {
      ms += by;
    },
  };
}

describe('keyUsageRecorder', () => {
  const setUp = () => {
    const clock = handClock();
    const writes: { keyId: string; now: string; unlessSince: string }[] = [];
    const errors: unknown[] = [];
    const record = keyUsageRecorder(
      {
        touchKey: async (keyId, now, unlessSince) => {
          writes.push({ keyId, now: now.toISOString(), unlessSince: unlessSince.toISOString() });
        },
      },
      clock,
      (error) => errors.push(error),
    );
    return { clock, writes, errors, record };
  };

  it('writes a key at most once an interval, however often it is used, and each key apart', () => {
    const { clock, writes, record } = setUp();
    const start = clock.now();
    record({ id: 'key_a', lastUsedAt: null });
    record({ id: 'key_a', lastUsedAt: null });
    record({ id: 'key_b', lastUsedAt: null });
    clock.advance(KEY_USE_INTERVAL_MS - 1);
    // The record may come from a cache that never saw the write: this process remembers it.
    record({ id: 'key_a', lastUsedAt: null });
    expect(writes.map((write) => write.keyId)).toStrictEqual(['key_a', 'key_b']);
    clock.advance(1);
    record({ id: 'key_a', lastUsedAt: null });
    expect(writes).toHaveLength(3);
    expect(writes[2]).toStrictEqual({
      keyId: 'key_a',
      now: clock.now().toISOString(),
      unlessSince: start.toISOString(),
    });
  });

  it('skips a key another process wrote within the interval', () => {
    const { clock, writes, record } = setUp();
    record({ id: 'key_a', lastUsedAt: new Date(clock.now().getTime() - KEY_USE_INTERVAL_MS + 1) });
    expect(writes).toHaveLength(0);
    record({ id: 'key_a', lastUsedAt: new Date(clock.now().getTime() - KEY_USE_INTERVAL_MS) });
    expect(writes).toHaveLength(1);
  });

  it('reports a failed write and never throws to the request', async () => {
    const clock = handClock();
    const errors: unknown[] = [];
    const record = keyUsageRecorder(
      { touchKey: () => Promise.reject(new Error('database down')) },
      clock,
      (error) => errors.push(error),
    );
    expect(() => record({ id: 'key_a', lastUsedAt: null })).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
  });
});
