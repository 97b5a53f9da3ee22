import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A loopback port the kernel has just offered for listening, closed again. */
function offeredPort(): Promise<number> {
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

// Every port this process has handed out: the kernel may offer a port it just offered (closed at once, it is free
// again), and two of a child's ports being equal made a sandbox die with EADDRINUSE on its own second server.
const handedOut = new Set<number>();

/** A loopback port that was free a moment ago and was never handed out before in this process (for a server the
 * test starts in another process). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await offeredPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
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

export interface UntilOptions {
  /** What to add to the error when the bound runs out (a worker's log, say). */
  readonly explain?: () => string;
  readonly tries?: number;
  readonly everyMs?: number;
}

/**
 * `eventually` for a wait whose value the test does not check itself (a background loop reaching a point, a
 * worker's first attempt): it throws, naming `what` and what `explain` adds, when the bound runs out, instead of
 * handing the last value on. The default bound (60 s, polled every 50 ms) is a safety net, not a timing assertion.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  { explain, tries = 1200, everyMs = 50 }: UntilOptions = {},
): Promise<T> {
  let accepted = false;
  const last = await eventually(
    probe,
    (value) => {
      accepted = accept(value);
      return accepted;
    },
    tries,
    everyMs,
  );
  if (!accepted) throw new Error(`${what} never happened${explain ? `:\n${explain()}` : ''}`);
  return last;
}
