import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';

export interface ReceivedWebhook {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The raw bytes, as a merchant's server must verify them. */
  readonly body: Buffer;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

/**
 * A merchant's webhook endpoint: a real HTTP server on 127.0.0.1 (port 0). It records every request and
 * answers whatever `respond` says — possibly after a while, or never (a held request), to play a slow or hung
 * server.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (request: ReceivedWebhook, index: number) => Reply | Promise<Reply> = () => ({ status: 204 });
  private server: Server | undefined;
  private waiters: { count: number; resolve: () => void }[] = [];
  base = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const received: ReceivedWebhook = {
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks),
        };
        const index = this.received.push(received) - 1;
        for (const waiter of this.waiters.filter((w) => this.received.length >= w.count)) waiter.resolve();
        this.waiters = this.waiters.filter((w) => this.received.length < w.count);
        try {
          const reply = await this.respond(received, index);
          if (response.destroyed) return;
          response.writeHead(reply.status, reply.headers ?? { 'content-type': 'text/plain' });
          response.end(reply.body ?? '');
        } catch {
          response.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path = '/hooks'): string {
    return `${this.base}${path}`;
  }

  /** Resolves once `count` requests in all have arrived. */
  waitForRequests(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Plain headers, as a merchant's framework hands them to the verifier. */
export function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') out[name] = value;
  return out;
}

/**
 * Verifies a received webhook with the `standardwebhooks` library, as a merchant would. The library also
 * checks that the timestamp is within 5 minutes of "now"; tests run on a hand-moved clock, so "now" is set to
 * the moment the message claims (its signature, id and body are what is being checked).
 */
export function verifyAsMerchant(secret: string, request: ReceivedWebhook): unknown {
  const timestamp = Number(request.headers['webhook-timestamp']) * 1000;
  vi.useFakeTimers({ toFake: ['Date'], now: Number.isFinite(timestamp) ? timestamp : 0 });
  try {
    return new Webhook(secret).verify(request.body.toString('utf8'), plainHeaders(request.headers));
  } finally {
    vi.useRealTimers();
  }
}
