import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy in front of a real node (anvil), on a real socket, that can answer as a node lagging behind
 * a load balancer does: every request goes to the node, and the answer comes back unchanged unless a fault says
 * otherwise.
 */
export interface RpcProxy {
  readonly url: string;
  /**
   * The next `times` answers to `eth_getTransactionReceipt` for this hash say "no receipt" (`null`), as a node
   * that has not yet seen the transaction's block does — whatever the node itself answered.
   */
  withholdReceipt(txHash: string, times: number): void;
  /** How many receipt answers for this hash were withheld so far. */
  withheld(txHash: string): number;
  close(): Promise<void>;
}

interface RpcCall {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: unknown[];
}

export async function startRpcProxy(nodeUrl: string): Promise<RpcProxy> {
  const toWithhold = new Map<string, number>();
  const withheld = new Map<string, number>();
  const rewrite = (call: RpcCall, answer: { result?: unknown }) => {
    if (call.method !== 'eth_getTransactionReceipt') return answer;
    const hash = String(call.params?.[0]).toLowerCase();
    const left = toWithhold.get(hash) ?? 0;
    if (left === 0) return answer;
    toWithhold.set(hash, left - 1);
    withheld.set(hash, (withheld.get(hash) ?? 0) + 1);
    return { ...answer, result: null };
  };
  const server: Server = createServer(async (request, response) => {
    try {
      const body = await readBody(request);
      const calls = JSON.parse(body) as RpcCall | RpcCall[];
      const forwarded = await fetch(nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const answers = (await forwarded.json()) as { result?: unknown } | { result?: unknown }[];
      const rewritten = Array.isArray(calls)
        ? (answers as { result?: unknown }[]).map((answer, i) => rewrite(calls[i] ?? {}, answer))
        : rewrite(calls, answers as { result?: unknown });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(rewritten));
    } catch (error) {
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    withholdReceipt(txHash, times) {
      toWithhold.set(txHash.toLowerCase(), times);
    },
    withheld: (txHash) => withheld.get(txHash.toLowerCase()) ?? 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
