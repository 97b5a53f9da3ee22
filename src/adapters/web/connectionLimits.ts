import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionLimits } from '../../config.ts';

/**
 * What one client may hold open on a listening server (the API and the checkout alike): without these, a client
 * that sends half a request and waits keeps its socket for ever, and a thousand of them exhaust the process's
 * file descriptors so that the server stops answering everyone.
 */

/** `PAYLINK_REQUEST_TIMEOUT` and `PAYLINK_MAX_CONNECTIONS_PER_CLIENT` when they are not set (and no proxy is trusted). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = Object.freeze({
  requestTimeoutMs: 30_000,
  maxConnectionsPerClient: 64,
});

/** Node enforces request timeouts on a sweep of open connections: this often, so a timeout is never late by much. */
const CHECK_INTERVAL_MS = 1_000;
/** Idle keep-alive connections are closed after this (Node's default, 5 s, would cut some load balancers' reuse). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** Fastify options enforcing the request timeout (headers and body) on the HTTP/1 server it creates. */
export function connectionLimitOptions(limits: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // headersTimeout may not exceed requestTimeout; both are checked on the same sweep.
    http: {
      headersTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, limits.requestTimeoutMs),
    },
  };
}

/**
 * Closes, at once, a connection from an address that already holds `max` open ones. Counted on the TCP peer's
 * address: an IPv6 client is counted per address (unlike the rate limit's /64), as sockets are what runs out.
 */
export function capConnectionsPerClient(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
