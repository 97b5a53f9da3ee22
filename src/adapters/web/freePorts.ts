import { createServer } from 'node:net';

/**
 * A start that cannot go on, said in one line naming what to change (the CLI prints its message alone): a port
 * another program holds, or a chain that belongs to another sandbox. Refused before anything is deployed.
 */
export class StartRefusedError extends Error {
  override readonly name = 'StartRefusedError';
}

/** Whether `port` on `host` can be listened on now (false when another process holds it). */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(false);
      else reject(error);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A port on `host` that was free a moment ago, to suggest in a message. */
export function someFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port: 0 }, () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Stops the start when one of the servers' ports is taken, naming the variable that moves it: found at the
 * first `listen`, it came after the sandbox had deployed its contracts, as a stack trace.
 */
export async function refuseTakenPorts(
  host: string,
  ports: readonly { readonly port: number; readonly variable: string }[],
): Promise<void> {
  for (const { port, variable } of ports) {
    if (port === 0 || (await portIsFree(host, port))) continue;
    throw new StartRefusedError(
      `port ${port} on ${host} is in use (another Paylink sandbox or another program): set ${variable} to a free port, such as ${await someFreePort(host)}`,
    );
  }
}
