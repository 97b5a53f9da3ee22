import type { FastifyInstance } from 'fastify';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import type { DialectName } from '../../src/adapters/db/database.ts';
import type { PayLinkDeps } from '../../src/app/links/payLink.ts';
import { createMerchant, type MerchantFields } from '../../src/app/merchants/merchantAdmin.ts';
import type { RateProvider } from '../../src/app/payments/ports.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { ApiServerInput } from '../../src/main/services.ts';
import { buildApiServer } from '../../src/main/webServers.ts';
import { createRates, createStores } from '../../src/main/wiring.ts';
import { TestClock } from './clock.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { capturingLogger } from './logCapture.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** Fixed contract addresses: deposit addresses are computed off-chain, so API tests need no chain. */
export const TEST_CHAIN = {
  chainId: 31337,
  tokenAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
} as const;

/** The HTTP methods the admin API answers. */
export type AdminMethod = 'GET' | 'POST' | 'PATCH';

/**
 * A request to the admin API of `app` with the operator's bearer token (the harness's unless another is given),
 * and the payload, if any, as a JSON body.
 */
export function adminRequest(
  app: FastifyInstance,
  method: AdminMethod,
  url: string,
  payload?: unknown,
  token: string = ADMIN_TOKEN,
) {
  return app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
}

export interface ApiHarness {
  readonly app: FastifyInstance;
  readonly database: TestDatabase;
  readonly clock: TestClock;
  readonly logs: () => string;
  readonly stores: ReturnType<typeof createStores>;
  /** Creates a merchant through the admin use case and returns its API key. */
  merchant(fields?: Partial<MerchantFields>): Promise<{ id: string; apiKey: string; webhookSecret: string }>;
  /** A request to this app's admin API: see adminRequest. */
  admin(method: AdminMethod, url: string, payload?: unknown, token?: string): ReturnType<typeof adminRequest>;
  close(): Promise<void>;
}

/**
 * The real app (real database of the dialect, real rate adapters on a static table unless `rates` is given),
 * for `app.inject` tests. Environment overrides go through the real config loader.
 */
export async function startApiHarness(
  dialect: DialectName,
  options: {
    env?: Record<string, string>;
    rates?: RateProvider;
    /** Extra or replaced app dependencies, possibly made from the test database. */
    overrides?: Partial<ApiServerInput> | ((database: TestDatabase) => Partial<ApiServerInput>);
  } = {},
): Promise<ApiHarness> {
  const database = await createTestDatabase(dialect);
  const config = loadConfig({
    PAYLINK_DATABASE_URL: database.url,
    PAYLINK_CHECKOUT_URL: 'https://pay.example.test',
    PAYLINK_BASE_URL: 'https://api.example.test',
    PAYLINK_NETWORK: 'sandbox',
    PAYLINK_RATES: 'static:USD=1.0002,EUR=1.08,CAD=0.73,JPY=0.0066,KWD=3.25,BHD=2.65',
    PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN,
    PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'false',
    // The test clock stands still, so buckets would never refill: suites opt in to rate limits (rateLimit.test.ts).
    PAYLINK_RATE_LIMIT: 'off',
    PAYLINK_RATE_LIMIT_IP: 'off',
    ...options.env,
  });
  const clock = new TestClock();
  const { logger, text } = capturingLogger();
  const stores = createStores(database.handle);
  const rates = options.rates ?? createRates(config, clock, logger);
  const deposits = { live: depositPlanner(TEST_CHAIN) };
  const overrides = typeof options.overrides === 'function' ? options.overrides(database) : options.overrides;
  // As in production: status reads are cached until the database says the payment changed.
  const paymentChanges = database.handle.followPaymentChanges(logger);
  const app = await buildApiServer({
    ...stores,
    paymentChanges,
    deposits,
    rates,
    clock,
    logger,
    config,
    ...overrides,
  });
  return {
    app,
    database,
    clock,
    logs: text,
    stores,
    async merchant(fields = {}) {
      const { merchant, apiKey } = await createMerchant(
        { merchants: stores.merchants, clock, webhookAllowPrivate: false },
        {
          wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          webhookUrl: 'https://merchant.example.test/hooks',
          commissionPercent: '1.5',
          ...fields,
          name: fields.name ?? 'Test Shop',
        },
      );
      return { id: merchant.id, apiKey, webhookSecret: merchant.webhookSecret };
    },
    admin: (method, url, payload, token) => adminRequest(app, method, url, payload, token),
    async close() {
      await app.close();
      await paymentChanges.close();
      await database.drop();
    },
  };
}

/**
 * What paying through a reusable link needs (payLink, the checkout's link pages) on the harness's stores and
 * clock: the sandbox's rates unless `env` sets others, payments of 30 minutes, the service's usual bounds.
 */
export function payLinkDeps(h: ApiHarness, env: Record<string, string> = {}): PayLinkDeps {
  const config = loadConfig({ PAYLINK_DATABASE_URL: h.database.url, PAYLINK_NETWORK: 'sandbox', ...env });
  return {
    ...h.stores,
    deposits: { live: depositPlanner(TEST_CHAIN) },
    rates: createRates(config, h.clock, capturingLogger().logger),
    clock: h.clock,
    paymentTtlMs: 30 * 60_000,
    minAmountBaseUnits: 500_000n,
    maxAmountBaseUnits: 1_000_000_000_000n,
    webhookAllowPrivate: false,
  };
}
