import { z } from 'zod';
import { duration, port, url } from './fields.ts';

/** Where the service keeps its data and listens, the addresses it is reached at, its logs and readiness. */
export const serviceEnv = {
  PAYLINK_DATABASE_URL: z
    .string()
    .default('sqlite:./data/paylink.db')
    .refine((v) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v), 'must be sqlite:<path> or postgres://…'),
  PAYLINK_HOST: z.string().min(1).default('127.0.0.1'),
  PAYLINK_API_PORT: port.default(3000),
  PAYLINK_CHECKOUT_PORT: port.default(3001),
  PAYLINK_SANDBOX_WEBHOOK_PORT: port.default(3002),
  PAYLINK_BASE_URL: url.optional(),
  PAYLINK_CHECKOUT_URL: url.optional(),
  PAYLINK_NETWORK: z.enum(['sandbox', 'polygon', 'amoy']).default('sandbox'),
  PAYLINK_READY_MAX_LAG_BLOCKS: z.coerce.number().int().min(1).max(1_000_000).default(100),
  PAYLINK_READY_MAX_STALL: duration('PAYLINK_READY_MAX_STALL').default(120_000),
  PAYLINK_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

type ServiceEnv = z.infer<z.ZodObject<typeof serviceEnv>>;

export function serviceConfig(e: ServiceEnv) {
  const urlHost = e.PAYLINK_HOST === '0.0.0.0' || e.PAYLINK_HOST === '::' ? '127.0.0.1' : e.PAYLINK_HOST;
  return {
    databaseUrl: e.PAYLINK_DATABASE_URL,
    host: e.PAYLINK_HOST,
    apiPort: e.PAYLINK_API_PORT,
    checkoutPort: e.PAYLINK_CHECKOUT_PORT,
    baseUrl: e.PAYLINK_BASE_URL ?? `http://${urlHost}:${e.PAYLINK_API_PORT}`,
    checkoutUrl: e.PAYLINK_CHECKOUT_URL ?? `http://${urlHost}:${e.PAYLINK_CHECKOUT_PORT}`,
    network: e.PAYLINK_NETWORK,
    readiness: { maxLagBlocks: e.PAYLINK_READY_MAX_LAG_BLOCKS, maxStallMs: e.PAYLINK_READY_MAX_STALL },
    logLevel: e.PAYLINK_LOG_LEVEL,
    sandboxWebhookPort: e.PAYLINK_SANDBOX_WEBHOOK_PORT,
  };
}
