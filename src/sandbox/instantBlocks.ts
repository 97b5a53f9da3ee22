import type { PublicClient } from 'viem';

/** The sandbox chains' pace: a block every 2 s (anvil's --block-time), as a real chain's blocks come. */
export const SANDBOX_BLOCK_TIME_S = 2;

/**
 * Mines each transaction at once while deploying (each one otherwise waits for the next 2 s block), then goes
 * back to the sandbox's pace. For chains this process started itself, whose pace it knows.
 */
export async function withInstantBlocks<T>(
  clients: readonly PublicClient[],
  deploy: () => Promise<T>,
): Promise<T> {
  const request = (client: PublicClient, method: string, params: unknown[]) =>
    (client.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });
  await Promise.all(clients.map((client) => request(client, 'evm_setAutomine', [true])));
  try {
    return await deploy();
  } finally {
    await Promise.all(
      clients.map((client) => request(client, 'evm_setIntervalMining', [SANDBOX_BLOCK_TIME_S])),
    );
  }
}
