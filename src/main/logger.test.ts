import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { capturingLogger } from '../../test/helpers/logCapture.ts';
import { createLogger, jsonLogDestination, logDestination } from './logger.ts';

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
  });

  it('writes JSON lines elsewhere in blocks, and a quiet log within a quarter of a second', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'paylink-log-')), 'service.log');
    const logger = createLogger('info', jsonLogDestination(file));
    const written = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    logger.info({ apiKey: 'sk_live_SECRET10', paymentId: 'p-1' }, 'payment created');
    expect(written()).toBe(''); // held for its block: no write per line
    await vi.waitFor(() => expect(written()).toContain('payment created'), { timeout: 2_000, interval: 20 });
    const line = JSON.parse(written().trim());
    expect(line).toMatchObject({ msg: 'payment created', paymentId: 'p-1', apiKey: '[redacted]' });

    // Many blocks' worth: every line arrives whole, in order.
    for (let i = 0; i < 500; i += 1) logger.info({ i }, 'line');
    await vi.waitFor(() => expect(written()).toContain('"i":499'), { timeout: 2_000, interval: 20 });
    const numbers = written()
      .trim()
      .split('\n')
      .slice(1)
      .map((text) => JSON.parse(text).i);
    expect(numbers).toEqual(Array.from({ length: 500 }, (_, i) => i));

    // pino's flush writes what is held and then answers.
    logger.info('flushed');
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    expect(written()).toContain('"msg":"flushed"');
  });

  it('writes every line still held when the process exits', () => {
    // To standard output, as `serve` logs.
    const script = [
      `import { createLogger, jsonLogDestination } from ${JSON.stringify(fileURLToPath(new URL('./logger.ts', import.meta.url)))};`,
      `const logger = createLogger('info', jsonLogDestination(1));`,
      "logger.info('first'); logger.info('last before exit');",
      'process.exit(3);',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.status).toBe(3);
    const lines = child.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text).msg);
    expect(lines).toEqual(['first', 'last before exit']);
  });
});
