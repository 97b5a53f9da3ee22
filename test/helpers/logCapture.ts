import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../src/main/logger.ts';

/** The service's real logger (same redaction), writing into memory so a test can read every line. */
export function capturingLogger(): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('debug', sink), text: () => chunks.join('') };
}
