import pino, { type Logger } from 'pino';

/**
 * Paths that could carry a secret (API keys, webhook secrets, the relayer key, the admin token). Logs never
 * show them, whatever a future log line passes in.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'apiKey',
  'api_key',
  'webhookSecret',
  'webhook_secret',
  'relayerKey',
  'adminToken',
  '*.apiKey',
  '*.api_key',
  '*.webhookSecret',
  '*.webhook_secret',
  '*.relayerKey',
  '*.adminToken',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
