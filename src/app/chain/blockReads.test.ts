import { describe, expect, it } from 'vitest';
import { blocksAt, lastBlockAtOrBefore } from './blockReads.ts';
import type { BlockHeader, ChainReader } from './ports.ts';

/** The watcher's header reads: where a time falls on the chain (a binary search), and many headers at once. */
const START = Date.parse('2026-12-01T00:00:00.000Z');

/** Blocks 0..`known` a second apart; a higher block is one the node does not return (a lagging replica). */
function chain(known: bigint, reads: bigint[] = []): ChainReader {
  return {
    blockAt: async (n: bigint): Promise<BlockHeader | undefined> => {
      reads.push(n);
      return n <= known
        ? { number: n, hash: `0x${n}`, timestamp: new Date(START + Number(n) * 1000) }
        : undefined;
    },
  } as ChainReader;
}

describe('lastBlockAtOrBefore', () => {
  it('finds the block at the time exactly, the one before a time between two blocks, and 0 before them all', async () => {
    expect(await lastBlockAtOrBefore(chain(100n), new Date(START + 42_000), 100n)).toBe(42n);
    expect(await lastBlockAtOrBefore(chain(100n), new Date(START + 42_999), 100n)).toBe(42n);
    expect(await lastBlockAtOrBefore(chain(100n), new Date(START - 1), 100n)).toBe(0n);
    expect(await lastBlockAtOrBefore(chain(100n), new Date(START + 10 ** 9), 100n)).toBe(100n);
  });

  it('takes a block the node does not return yet as later than the time, not as an error', async () => {
    expect(await lastBlockAtOrBefore(chain(60n), new Date(START + 10 ** 9), 100n)).toBe(60n);
  });
});

describe('blocksAt', () => {
  it('reads every header asked for, in bounded rounds', async () => {
    const reads: bigint[] = [];
    const numbers = Array.from({ length: 33 }, (_, i) => BigInt(i));
    const headers = await blocksAt(chain(31n, reads), numbers);
    expect([...headers.keys()]).toEqual(numbers);
    expect(headers.get(31n)?.number).toBe(31n);
    expect(headers.get(32n)).toBeUndefined();
    expect(headers.has(32n)).toBe(true);
    expect(reads).toEqual(numbers);
  });
});
