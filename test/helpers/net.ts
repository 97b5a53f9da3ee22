import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A loopback port that was free a moment ago (for a server the test starts in another process). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Polls `probe` until `accept` holds or `tries` run out, and returns the last value for the test to assert on.
 * The bound is a safety net against a hung test, never an assertion on speed.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  tries = 600,
  everyMs = 200,
): Promise<T> {
  let last = await probe();
  for (let i = 0; i < tries && !accept(last); i += 1) {
    await sleep(everyMs);
    last = await probe();
  }
  return last;
}
