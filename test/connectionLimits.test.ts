/**
 * A client holding sockets open cannot take the servers down: a request whose headers or body never finish is
 * answered 408 and closed after the request timeout, and one client address holds at most so many connections
 * while others are still served — on the API and on the public checkout, over real sockets.
 */

import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCheckoutApp } from '../src/adapters/checkout/buildCheckoutApp.ts';
import { type ApiHarness, startApiHarness } from './helpers/apiHarness.ts';
import { capturingLogger } from './helpers/logCapture.ts';

const LIMITS = { requestTimeoutMs: 1_000, maxConnectionsPerClient: 3 };

/** A raw TCP connection from `localAddress`, recording what the server sends and when it closes. */
function open(port: number, localAddress = '127.0.0.1') {
  const socket: Socket = connect({ host: '127.0.0.1', port, localAddress });
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, connected, closed, received: () => received };
}

/** One complete request on a fresh connection: the status line, or null if the server closed on it. */
async function statusOf(port: number, path: string, localAddress?: string): Promise<string | null> {
  const client = open(port, localAddress);
  await client.connected;
  client.socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`);
  await client.closed;
  return client.received().split('\r\n')[0] || null;
}

/** A create request whose body stops a third of the way (with a valid key: the API reads bodies of callers only). */
const halfABody = (apiKey: string) =>
  `POST /payments/api/create/ HTTP/1.1\r\nHost: test\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"amount": 1`;

describe.each([
  ['the merchant API', 'api', '/healthz'],
  ['the checkout', 'checkout', '/assets/checkout.css'],
] as const)('connection limits on %s', (_name, which, okPath) => {
  let h: ApiHarness;
  let server: FastifyInstance;
  let port: number;
  let apiKey: string;

  beforeAll(async () => {
    h = await startApiHarness('sqlite', {
      env: { PAYLINK_REQUEST_TIMEOUT: '1s', PAYLINK_MAX_CONNECTIONS_PER_CLIENT: '3' },
    });
    ({ apiKey } = await h.merchant());
    server =
      which === 'api'
        ? h.app
        : await buildCheckoutApp({
            ...h.stores,
            clock: h.clock,
            logger: capturingLogger().logger,
            network: { name: 'Sandbox', chainId: 31337, explorerUrl: '' },
            connectionLimits: LIMITS,
          });
    await server.listen({ host: '127.0.0.1', port: 0 });
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    if (which === 'checkout') await server?.close();
    await h?.close();
  });

  it('answers 408 and closes a request whose body never finishes', async () => {
    const slow = open(port);
    await slow.connected;
    slow.socket.write(halfABody(apiKey));
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('holds at most 3 connections per client address; others are still served, and so is it once they close', async () => {
    const held = [open(port), open(port), open(port)];
    for (const client of held) {
      await client.connected;
      client.socket.write(halfABody(apiKey));
    }
    // The 4th from the same address is closed at once, without an answer.
    const fourth = open(port);
    await fourth.closed;
    expect(fourth.received()).toBe('');
    // Another address is served meanwhile.
    expect(await statusOf(port, okPath, '127.0.0.2')).toBe('HTTP/1.1 200 OK');
    // The held ones time out; the address is served again.
    await Promise.all(held.map((client) => client.closed));
    expect(await statusOf(port, okPath)).toBe('HTTP/1.1 200 OK');
  });
});
