import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { finished } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ConnectionLimits } from '../../config/index.ts';
import { errorResponseOf, PaylinkError } from '../../domain/errors.ts';

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
 * Connections an address may hold beyond its cap, each answered 503 as soon as its request has arrived, as a
 * multiple of the cap. Past them the address is flooding, not waiting for answers: further connections are
 * closed at once, so that one address never holds more than (1 + this) × the cap of the process's descriptors.
 */
export const REFUSED_CONNECTIONS_PER_CAP = 8;

/** Seconds a client over its cap is asked to wait before trying again (`Retry-After`). */
const RETRY_AFTER_S = 1;

/**
 * Serves at most `max` open connections per client address; the next ones, up to `REFUSED_CONNECTIONS_PER_CAP`
 * × `max` more, are answered `503 TOO_MANY_CONNECTIONS` with `Retry-After` and closed, so a client that opens too
 * many knows that request was not handled and may send it again (a reset left it unable to tell whether its
 * payment exists). Beyond those, a connection is closed at once. Counted on the TCP peer's address: an IPv6
 * client is counted per address (unlike the rate limit's /64), as sockets are what runs out.
 *
 * The refusal is the app's first `onRequest` hook (register this before any other), so nothing else runs for
 * it. It is sent once the whole request has been read: closing a socket with unread bytes makes the kernel
 * reset it, and the client could lose the answer. A request that never finishes is still cut off by the request
 * timeout (408), as on any connection.
 */
export function capConnectionsPerClient(app: FastifyInstance, max: number): void {
  if (max <= 0) return;
  const served = new Map<string, number>();
  const refused = new Map<string, number>();
  const overCap = new WeakSet<Socket>();
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if ((served.get(address) ?? 0) < max) {
      count(served, address, socket);
      return;
    }
    if ((refused.get(address) ?? 0) >= max * REFUSED_CONNECTIONS_PER_CAP) {
      socket.destroy();
      return;
    }
    overCap.add(socket);
    count(refused, address, socket);
  });
  const body = JSON.stringify(
    errorResponseOf(
      new PaylinkError(
        'TOO_MANY_CONNECTIONS',
        `Too many open connections from your address (at most ${max} at once): this request was not handled; send it again after Retry-After, or reuse fewer connections`,
      ),
    ),
  );
  app.addHook('onRequest', (request, reply, done) => {
    if (!overCap.has(request.raw.socket)) {
      done();
      return;
    }
    finished(request.raw, (error) => {
      if (error) return; // the connection closed or timed out first: nobody to answer
      reply
        .status(503)
        .header('retry-after', String(RETRY_AFTER_S))
        .header('connection', 'close')
        .type('application/json; charset=utf-8')
        .send(body);
    });
    request.raw.resume();
  });
}

/** Counts the socket for its address until it closes. */
function count(open: Map<string, number>, address: string, socket: Socket): void {
  open.set(address, (open.get(address) ?? 0) + 1);
  socket.once('close', () => {
    const left = (open.get(address) ?? 1) - 1;
    if (left > 0) open.set(address, left);
    else open.delete(address);
  });
}
