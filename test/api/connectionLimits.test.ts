/**
 * A client holding sockets open cannot take the servers down: a request whose headers or body never finish is
 * answered 408 and closed after the request timeout, and one client address is served on at most so many
 * connections while others are still served, its next ones answered 503 (not reset), and a flood closed — on
 * the API and on the public checkout, over real sockets.
 */

import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

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
        : await buildCheckoutServer({
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

  it('serves at most 3 connections per client address, answers the next ones 503 with Retry-After, and closes a flood', async () => {
    const held = [open(port), open(port), open(port)];
    for (const client of held) {
      await client.connected;
      client.socket.write(halfABody(apiKey));
    }
    // The 4th from the same address is answered at once: not handled, try again later.
    const fourth = open(port);
    await fourth.connected;
    fourth.socket.write(`GET ${okPath} HTTP/1.1\r\nHost: test\r\n\r\n`);
    await fourth.closed;
    const [head, answer] = fourth.received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(answer!)).toMatchObject({ code: 'TOO_MANY_CONNECTIONS', error: expect.any(String) });
    // Over the cap, a request that never finishes is cut off by the request timeout as any other.
    const slowOver = open(port);
    await slowOver.connected;
    slowOver.socket.write(halfABody(apiKey));
    // Past the refused ones an address may hold (8 × 3, the slow one among them), a connection is closed at once.
    const refused = Array.from({ length: 8 * 3 - 1 }, () => open(port));
    await Promise.all(refused.map((client) => client.connected));
    const flood = open(port);
    await flood.closed;
    expect(flood.received()).toBe('');
    for (const client of refused) client.socket.destroy();
    // Another address is served meanwhile.
    expect(await statusOf(port, okPath, '127.0.0.2')).toBe('HTTP/1.1 200 OK');
    await slowOver.closed;
    expect(slowOver.received()).toMatch(/^HTTP\/1\.1 408 /);
    // The held ones time out; the address is served again.
    await Promise.all(held.map((client) => client.closed));
    expect(await statusOf(port, okPath)).toBe('HTTP/1.1 200 OK');
  });
});

/** What a request got: an HTTP answer, or the socket's error (ECONNRESET …) instead of one. */
type Answer = { status: number; retryAfter: string | undefined; body: string };
type Failure = { error: string };

describe.each(dialects)(
  '500 concurrent creates from one address on %s, over the default cap of 64',
  (dialect) => {
    let h: ApiHarness;
    let port: number;
    let apiKey: string;

    beforeAll(async () => {
      h = await startApiHarness(dialect);
      ({ apiKey } = await h.merchant());
      await h.app.listen({ host: '127.0.0.1', port: 0 });
      port = (h.app.server.address() as AddressInfo).port;
    });
    afterAll(() => h?.close());

    it('are each answered, created or 503 with Retry-After; none is reset, and only the created ones exist', async () => {
      // Every request on its own connection, all open at once, as a merchant's server firing them in parallel.
      const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
      const create = (i: number) =>
        new Promise<Answer | Failure>((resolve) => {
          const payload = JSON.stringify({ amount: '1.00', currency: 'USDC', order_id: `burst-${i}` });
          const request = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: '/payments/api/create/',
              agent,
              headers: {
                'x-api-key': apiKey,
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(payload),
              },
            },
            (response) => {
              let body = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => {
                body += chunk;
              });
              response.on('end', () =>
                resolve({ status: response.statusCode!, retryAfter: response.headers['retry-after'], body }),
              );
              response.on('error', (error: NodeJS.ErrnoException) =>
                resolve({ error: error.code ?? error.message }),
              );
            },
          );
          request.on('error', (error: NodeJS.ErrnoException) =>
            resolve({ error: error.code ?? error.message }),
          );
          request.end(payload);
        });
      const answers = await Promise.all(Array.from({ length: 500 }, (_, i) => create(i)));
      agent.destroy();

      expect(answers.filter((a) => 'error' in a)).toEqual([]);
      const answered = answers.filter((a): a is Answer => !('error' in a));
      const created = answered.filter((a) => a.status === 201);
      const refused = answered.filter((a) => a.status !== 201);
      expect(created.length + refused.length).toBe(500);
      expect(created.length).toBeGreaterThan(0);
      for (const answer of refused) {
        expect(answer.status).toBe(503);
        expect(answer.retryAfter).toBe('1');
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'TOO_MANY_CONNECTIONS' });
      }
      // A 503 is a request not handled: exactly the created ones exist, so the others may simply be sent again.
      const stored = await h.database.handle.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(created.length);
    });
  },
);
