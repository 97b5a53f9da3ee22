import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * A local HTTP server standing in for a public API this machine cannot reach. It answers with whatever the
 * test sets (in that API's real format) and records each request.
 */
export class FixtureServer {
  readonly requests: URL[] = [];
  respond: (request: IncomingMessage, url: URL) => FixtureResponse = () => ({ status: 404, body: '{}' });
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://fixture');
      this.requests.push(url);
      const { status, body } = this.respond(request, url);
      response.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
