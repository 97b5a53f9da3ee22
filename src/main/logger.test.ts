import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../../test/helpers/logCapture.ts';
import { createLogger, logDestination } from './logger.ts';

describe('logger', () => {
  it('redacts secrets wherever a log line puts them', () => {
    const { logger, text } = capturingLogger();
    logger.info({ apiKey: 'sk_live_SECRET1', merchant: { webhook_secret: 'whsec_SECRET2' } }, 'one');
    logger.info(
      { req: { headers: { authorization: 'Bearer sk_live_SECRET3', 'x-api-key': 'sk_live_SECRET4' } } },
      'two',
    );
    logger.info({ relayerKey: '0xSECRET5', config: { adminToken: 'SECRET6' } }, 'three');
    logger
      .child({ api_key: 'sk_test_SECRET7' })
      .info({ note: 'kept', nested: { webhookSecret: 'SECRET8' } }, 'four');
    const logs = text();
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) expect(logs).not.toContain(`SECRET${n}`);
    const four = JSON.parse(logs.trim().split('\n').at(-1)!);
    expect(four).toMatchObject({
      api_key: '[redacted]',
      note: 'kept',
      nested: { webhookSecret: '[redacted]' },
    });
  });

  it('writes readable lines to a terminal, still without secrets, and JSON elsewhere', async () => {
    let written = '';
    const terminal = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          written += chunk.toString();
          done();
        },
      }),
      { isTTY: true },
    );
    const destination = logDestination(terminal);
    expect(destination).toBeDefined();
    const logger = createLogger('info', destination);
    logger.info({ apiKey: 'sk_live_SECRET9', paymentId: 'p-1' }, 'payment created');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toContain('payment created');
    expect(written).toContain('p-1');
    expect(written).not.toContain('SECRET9');
    expect(() => JSON.parse(written.trim())).toThrow(); // a line for people, not JSON
    expect(logDestination(new Writable())).toBeUndefined(); // not a terminal: pino's JSON lines
  });
});
