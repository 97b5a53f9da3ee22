import { describe, expect, it } from 'vitest';
import { groupCommit } from './groupCommit.ts';

/** A write the test releases by hand, recording each batch it was given. */
function heldWrites(fail: (item: string) => boolean = () => false) {
  const batches: string[][] = [];
  const releases: (() => void)[] = [];
  const write = async (items: readonly string[]) => {
    batches.push([...items]);
    await new Promise<void>((resolve) => releases.push(resolve));
    if (items.some(fail)) throw new Error(`refused ${items.join(',')}`);
  };
  const releaseNext = async () => {
    while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));
    releases.shift()!();
  };
  return { batches, write, releaseNext };
}

const settled = (promise: Promise<void>) => {
  const state = { done: false, error: undefined as unknown };
  promise.then(
    () => {
      state.done = true;
    },
    (error) => {
      state.done = true;
      state.error = error;
    },
  );
  return state;
};

describe('groupCommit', () => {
  it('writes alone when idle, and together what arrived while a write was in flight', async () => {
    const { batches, write, releaseNext } = heldWrites();
    const insert = groupCommit(write, 10);
    const a = settled(insert('a'));
    const rest = ['b', 'c', 'd'].map((item) => settled(insert(item)));
    await releaseNext();
    await releaseNext();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toStrictEqual([['a'], ['b', 'c', 'd']]);
    expect([a, ...rest].every((s) => s.done && s.error === undefined)).toBe(true);
  });

  it('answers no caller before its own item is written', async () => {
    const { write, releaseNext } = heldWrites();
    const insert = groupCommit(write, 10);
    const a = settled(insert('a'));
    const b = settled(insert('b'));
    await releaseNext();
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.done).toBe(true);
    expect(b.done).toBe(false);
    await releaseNext();
    await new Promise((resolve) => setImmediate(resolve));
    expect(b.done).toBe(true);
  });

  it('never puts more than the bound in one write', async () => {
    const { batches, write, releaseNext } = heldWrites();
    const insert = groupCommit(write, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((item) => settled(insert(item)));
    for (let i = 0; i < 3; i += 1) await releaseNext();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toStrictEqual([['a'], ['b', 'c'], ['d', 'e']]);
    expect(all.every((s) => s.done)).toBe(true);
  });

  it('retries a failed batch item by item: only the bad item’s caller gets the error', async () => {
    const { batches, write, releaseNext } = heldWrites((item) => item === 'bad');
    const insert = groupCommit(write, 10);
    const first = settled(insert('a'));
    const good = settled(insert('b'));
    const bad = settled(insert('bad'));
    for (let i = 0; i < 4; i += 1) await releaseNext();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toStrictEqual([['a'], ['b', 'bad'], ['b'], ['bad']]);
    expect(first.error).toBeUndefined();
    expect(good).toStrictEqual({ done: true, error: undefined });
    expect(bad.done).toBe(true);
    expect(String(bad.error)).toContain('refused bad');
  });
});
