import { describe, expect, it } from 'vitest';
import { type StatusRead, statusReadCache } from './statusReadCache.ts';

/** Marks as a test sets them: a payment's mark is whatever the test last made it; null stops caching. */
function settableMarks() {
  const marks = new Map<string, string>();
  let following = true;
  return {
    marks: { markOf: (id: string) => (following ? (marks.get(id) ?? '0') : null) },
    change: (id: string) => marks.set(id, `${Number(marks.get(id) ?? '0') + 1}`),
    stopFollowing: () => {
      following = false;
    },
  };
}

const now = new Date('2026-11-21T12:00:00Z');
const read = (body: string, holdsUntil: Date | null = null): StatusRead => ({
  merchantId: 'm1',
  mode: 'live',
  body,
  holdsUntil,
});

describe('statusReadCache', () => {
  it('answers from memory until the payment changes', () => {
    const { marks, change } = settableMarks();
    const cache = statusReadCache(marks, 10);
    cache.remember('p1', cache.mark('p1'), read('{"status":"pending"}'));
    expect(cache.lookup('p1', 'm1', 'live', now)).toBe('{"status":"pending"}');
    change('p2');
    expect(cache.lookup('p1', 'm1', 'live', now)).toBe('{"status":"pending"}');
    change('p1');
    expect(cache.lookup('p1', 'm1', 'live', now)).toBeUndefined();
  });

  it('keeps nothing read while the payment changed, or while changes are not followed', () => {
    const { marks, change, stopFollowing } = settableMarks();
    const cache = statusReadCache(marks, 10);
    const before = cache.mark('p1');
    change('p1'); // committed while the read was running: what it read may be older
    cache.remember('p1', before, read('{"status":"pending"}'));
    expect(cache.lookup('p1', 'm1', 'live', now)).toBeUndefined();

    cache.remember('p1', cache.mark('p1'), read('{"status":"processing"}'));
    stopFollowing();
    expect(cache.lookup('p1', 'm1', 'live', now)).toBeUndefined();
    expect(cache.mark('p1')).toBeNull();
    cache.remember('p2', null, read('{}'));
    expect(cache.lookup('p2', 'm1', 'live', now)).toBeUndefined();
  });

  it('is a miss for another merchant, the other mode, and past the moment the clock changes the status', () => {
    const { marks } = settableMarks();
    const cache = statusReadCache(marks, 10);
    const expiresAt = new Date(now.getTime() + 60_000);
    cache.remember('p1', cache.mark('p1'), read('{"status":"pending"}', expiresAt));
    expect(cache.lookup('p1', 'm2', 'live', now)).toBeUndefined();
    expect(cache.lookup('p1', 'm1', 'test', now)).toBeUndefined();
    expect(cache.lookup('p1', 'm1', 'live', expiresAt)).toBe('{"status":"pending"}');
    expect(cache.lookup('p1', 'm1', 'live', new Date(expiresAt.getTime() + 1))).toBeUndefined();
  });

  it('keeps at most its bound, the oldest going first', () => {
    const { marks } = settableMarks();
    const cache = statusReadCache(marks, 2);
    for (const id of ['p1', 'p2', 'p3']) cache.remember(id, cache.mark(id), read(id));
    expect(cache.lookup('p1', 'm1', 'live', now)).toBeUndefined();
    expect(cache.lookup('p2', 'm1', 'live', now)).toBe('p2');
    expect(cache.lookup('p3', 'm1', 'live', now)).toBe('p3');
  });
});
