import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

/** Fields that carry a secret (API keys, webhook secrets, the relayer key, the admin token) under any name used. */
const SECRET_FIELDS = new Set([
  'apiKey',
  'api_key',
  'webhookSecret',
  'webhook_secret',
  'relayerKey',
  'gaslessRelayerKey',
  'adminToken',
]);

/** Request headers that carry a secret, should a log line ever include the request itself. */
const SECRET_HEADER_PATHS = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'];

const CENSOR = '[redacted]';

/**
 * Logs never show a secret, whatever a future log line passes in: a secret-named field is censored at the top
 * level of a line or of a child logger's bindings, and one level down in a line (`{ merchant: { webhook_secret }
 * }`); so are the secret request headers.
 *
 * pino redacts the paths without a wildcard at no cost. One level down is a scan of the line's own values
 * instead of pino's wildcard paths (`*.apiKey`): pino copies every line to apply a wildcard, which was more than
 * half of the cost of the request log line in the API benchmark; the scan copies a line only when it holds a
 * secret.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: [...SECRET_FIELDS, ...SECRET_HEADER_PATHS], censor: CENSOR },
      formatters: { log: censorNestedSecretFields },
    },
    destination,
  );
}

/** A block of JSON lines written at once: about twenty request lines. */
const LOG_BLOCK_BYTES = 4096;
/** The longest a line waits for its block to fill, so a quiet service's log is still current. */
const LOG_FLUSH_MS = 250;

/**
 * Where the service's log goes: readable lines on a terminal (a person running `npm start`), one JSON object per
 * line otherwise (a file, a pipe, a log collector). Secrets are redacted before either.
 */
export function logDestination(
  output: NodeJS.WritableStream & { isTTY?: boolean; fd?: number },
): pino.DestinationStream {
  if (!output.isTTY) return jsonLogDestination(output.fd ?? 1);
  return pretty({
    destination: output,
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
}

/**
 * JSON lines to a file descriptor or a file, written in blocks of about 4 KB, and at least every 250 ms
 * (docs/decisions/0016-log-writes.md): a write per line was a large share of a request's CPU.
 * What is held is written when the process exits, however it exits short of being killed; a SIGKILL or a
 * power cut can lose the last quarter of a second of lines, never a record (those are in the database).
 *
 * The lines are gathered here rather than by sonic-boom (pino's destination), which can hold lines itself
 * (`minLength`) but then measures the UTF-8 length of all it holds at every line: under load that cost more
 * than the writes it saved. Each block is one synchronous write, as pino's default destination writes a line.
 */
export function jsonLogDestination(
  dest: number | string,
): pino.DestinationStream & { flush(callback?: (error?: Error) => void): void } {
  const file = pino.destination({ dest, sync: true });
  let lines: string[] = [];
  // UTF-16 code units: close enough to bytes to decide when a block is full.
  let held = 0;
  const writeHeld = () => {
    if (lines.length === 0) return;
    const block = lines.join('');
    lines = [];
    held = 0;
    file.write(block);
  };
  setInterval(writeHeld, LOG_FLUSH_MS).unref();
  process.on('exit', writeHeld);
  return {
    write(line: string) {
      lines.push(line);
      held += line.length;
      if (held >= LOG_BLOCK_BYTES) writeHeld();
    },
    // pino's `logger.flush(callback)` calls this: written synchronously, so the callback follows at once.
    flush(callback?: (error?: Error) => void) {
      writeHeld();
      callback?.();
    },
  };
}

function censorNestedSecretFields(line: Record<string, unknown>): Record<string, unknown> {
  let censored: Record<string, unknown> | undefined;
  for (const key of Object.keys(line)) {
    const value = line[key];
    if (isPlainObject(value) && Object.keys(value).some((inner) => SECRET_FIELDS.has(inner))) {
      censored ??= { ...line };
      censored[key] = Object.fromEntries(
        Object.entries(value).map(([inner, v]) => [inner, SECRET_FIELDS.has(inner) ? CENSOR : v]),
      );
    }
  }
  return censored ?? line;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
