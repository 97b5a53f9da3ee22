import type { BlockHeader, ChainReader } from './ports.ts';

/** The watcher's reads of block headers: where a time falls on the chain, and many headers at once. */

const BLOCK_FETCH_CONCURRENCY = 16;

/** The highest block whose timestamp is at or before `time` (0 if none is): a binary search, about 26 reads. */
export async function lastBlockAtOrBefore(
  chain: Pick<ChainReader, 'blockAt'>,
  time: Date,
  head: bigint,
): Promise<bigint> {
  let low = 0n;
  let high = head;
  while (low < high) {
    const middle = (low + high + 1n) / 2n;
    const block = await chain.blockAt(middle);
    if (block !== undefined && block.timestamp.getTime() <= time.getTime()) low = middle;
    else high = middle - 1n;
  }
  return low;
}

/** Block headers by number, fetched a bounded number at a time (independent reads: no need to wait in turn). */
export async function blocksAt(
  chain: ChainReader,
  numbers: readonly bigint[],
): Promise<Map<bigint, BlockHeader | undefined>> {
  const headers = new Map<bigint, BlockHeader | undefined>();
  for (let i = 0; i < numbers.length; i += BLOCK_FETCH_CONCURRENCY) {
    const chunk = numbers.slice(i, i + BLOCK_FETCH_CONCURRENCY);
    const fetched = await Promise.all(chunk.map((n) => chain.blockAt(n)));
    for (const [k, n] of chunk.entries()) headers.set(n, fetched[k]);
  }
  return headers;
}

/** A range looked at while the chain moved under it: nothing is written, the next pass tries again. */
export class ChainMovedError extends Error {
  override readonly name = 'ChainMovedError';
}

/** Block and transaction hashes compared as the chain means them: case does not matter. */
export function sameHash(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
