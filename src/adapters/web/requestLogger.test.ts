import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { OneLinePerRequest } from './requestLog.ts';
import { lazyChildLoggers } from './requestLogger.ts';

/** An app as the API's server (web/webServer.ts) sets its logging up, writing into `written`. */
function loggingApp(written: string[]) {
  const out = new Writable({
    write(chunk, _encoding, done) {
      written.push(...String(chunk).trim().split('\n'));
      done();
    },
  });
  const app = Fastify({
    loggerInstance: pino({ level: 'info' }, out) as FastifyBaseLogger,
    logController: new OneLinePerRequest(),
    childLoggerFactory: lazyChildLoggers,
    genReqId: () => `req-${written.length}`,
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/talks', async (request) => {
    request.log.info({ detail: 1 }, 'route says');
    return { ok: true };
  });
  app.get('/polled', { logLevel: 'warn' }, async () => ({ ok: true }));
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  return app;
}

describe('request loggers made only when a request logs', () => {
  it('writes a quiet request its one line with its id, once', async () => {
    const written: string[] = [];
    const app = loggingApp(written);
    const response = await app.inject({ url: '/quiet' });
    expect(response.statusCode).toBe(200);
    expect(written).toHaveLength(1);
    expect(written[0]!.match(/"reqId"/g)).toHaveLength(1);
    expect(JSON.parse(written[0]!)).toMatchObject({
      reqId: 'req-0',
      msg: 'request completed',
      method: 'GET',
      url: '/quiet',
      statusCode: 200,
    });
  });

  it('gives a route that logs a child bound to the request id, and the line the same id', async () => {
    const written: string[] = [];
    const app = loggingApp(written);
    await app.inject({ url: '/talks' });
    const lines = written.map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.msg, line.reqId])).toEqual([
      ['route says', 'req-0'],
      ['request completed', 'req-0'],
    ]);
    for (const line of written) expect(line.match(/"reqId"/g)).toHaveLength(1);
  });

  it("keeps a route's own log level: a polled route at warn writes no line", async () => {
    const written: string[] = [];
    const app = loggingApp(written);
    expect((await app.inject({ url: '/polled' })).statusCode).toBe(200);
    expect(written).toEqual([]);
  });

  it("writes a failed request's error through its child, then its line, both with its id", async () => {
    const written: string[] = [];
    const app = loggingApp(written);
    expect((await app.inject({ url: '/fails' })).statusCode).toBe(500);
    const lines = written.map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.level, line.reqId])).toEqual([
      [50, 'req-0'],
      [30, 'req-0'],
    ]);
    expect(lines[0].err.message).toBe('boom');
    expect(lines[1]).toMatchObject({ msg: 'request completed', statusCode: 500 });
    for (const line of written) expect(line.match(/"reqId"/g)).toHaveLength(1);
  });
});
