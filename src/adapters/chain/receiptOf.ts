import { type Hex, type PublicClient, TransactionReceiptNotFoundError } from 'viem';

/**
 * A transaction's receipt, or undefined while the node has none (not mined yet, or a lagging node behind a
 * load-balanced RPC): the settler's flushes and the bridge's burns and mints read their own this way.
 */
export async function receiptOf(
  client: PublicClient,
  txHash: Hex,
): Promise<Awaited<ReturnType<PublicClient['getTransactionReceipt']>> | undefined> {
  try {
    return await client.getTransactionReceipt({ hash: txHash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw error;
  }
}
