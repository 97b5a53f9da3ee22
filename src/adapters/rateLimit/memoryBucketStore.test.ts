import { describe, expect, it } from 'vitest';
import { memoryBucketStore } from './memoryBucketStore.ts';

const policy = { ratePerSecond: 1, burst: 2 };
const at = (ms: number) => new Date(ms);

describe('memoryBucketStore', () => {
  it('keeps one bucket per key', async () => {
    const store = memoryBucketStore();
    expect((await store.take('a', policy, at(0))).allowed).toBe(true);
    expect((await store.take('a', policy, at(0))).allowed).toBe(true);
    expect((await store.take('a', policy, at(0))).allowed).toBe(false);
    expect((await store.take('b', policy, at(0))).allowed).toBe(true);
    expect((await store.take('a', policy, at(1_000))).allowed).toBe(true);
  });

  it('gives a token back, and forgets a bucket, which then comes back full', async () => {
    const store = memoryBucketStore();
    await store.take('a', policy, at(0));
    await store.take('a', policy, at(0));
    expect((await store.take('a', policy, at(0))).allowed).toBe(false);
    await store.giveBack('a', policy, at(0));
    expect((await store.take('a', policy, at(0))).allowed).toBe(true);
    expect((await store.take('a', policy, at(0))).allowed).toBe(false);
    await store.forget('a');
    expect(await store.take('a', policy, at(0))).toMatchObject({ allowed: true, remaining: 1 });
    // Nothing to give back to a bucket never used: it is full already.
    await store.giveBack('b', policy, at(0));
    expect(await store.take('b', policy, at(0))).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('answers at once, not with a promise: the rate limit asks on every request', () => {
    const decision = memoryBucketStore().take('a', policy, at(0));
    expect(decision).not.toBeInstanceOf(Promise);
    expect(decision).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('stays bounded, forgetting the least recently used bucket first', async () => {
    const store = memoryBucketStore({ maxBuckets: 2 });
    await store.take('old', policy, at(0));
    await store.take('old', policy, at(0)); // drained
    await store.take('kept', policy, at(0));
    await store.take('kept', policy, at(0)); // drained
    await store.take('old', policy, at(0)); // refused, and now the most recent
    await store.take('new', policy, at(0)); // over the bound: 'kept' goes
    expect((await store.take('old', policy, at(0))).allowed).toBe(false);
    // A forgotten bucket comes back full: the bound only ever errs on the permissive side.
    expect((await store.take('kept', policy, at(0))).allowed).toBe(true);
  });
});
