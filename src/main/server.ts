import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { buildApp } from '../adapters/api/buildApp.ts';
import { createRpcClient } from '../adapters/chain/chainReader.ts';
import { holdsCode } from '../adapters/chain/contractCode.ts';
import { authorizationChain } from '../adapters/chain/eip3009.ts';
import { buildCheckoutApp } from '../adapters/checkout/buildCheckoutApp.ts';
import type { CheckoutGasless } from '../adapters/checkout/gaslessRoutes.ts';
import type { CheckoutRefunds } from '../adapters/checkout/refundRoutes.ts';
import { isCommonPassword } from '../adapters/crypto/commonPasswords.ts';
import { scryptPasswords } from '../adapters/crypto/scryptPasswords.ts';
import { migrateToLatest } from '../adapters/db/database.ts';
import { inProcessSingletonLocks, postgresSingletonLocks } from '../adapters/db/singletonLocks.ts';
import { acquireSqliteProcessLock } from '../adapters/db/sqliteProcessLock.ts';
import { createMetrics } from '../adapters/metrics/metrics.ts';
import { memoryBucketStore } from '../adapters/rateLimit/memoryBucketStore.ts';
import { redisBucketStore } from '../adapters/rateLimit/redisBucketStore.ts';
import { acceptAuthorization, gaslessAmountDue } from '../app/gasless/acceptAuthorization.ts';
import type { AuthorizationChain } from '../app/gasless/ports.ts';
import type { DepositPlanners } from '../app/payments/ports.ts';
import type { RateLimitStore } from '../app/shared/ports.ts';
import { type Clock, systemClock } from '../app/shared/ports.ts';
import type { Config } from '../config/index.ts';
import { type ResolvedChain, resolveChains, stopChains } from './chainSetup.ts';
import { chainViews } from './chainViews.ts';
import { portIsFree, refuseTakenPorts, StartRefusedError, someFreePort } from './ports.ts';
import { ensureDemoMerchant, ensureDemoUsers, readSandboxMerchantId, type SandboxUsers } from './sandbox.ts';
import { stateDirOf } from './sandboxChain.ts';
import { sandboxInboxMerchant, startSandboxWebhookInbox } from './sandboxWebhookInbox.ts';
import { createRates, createStores, hostResolver, openConfiguredDatabase } from './wiring.ts';
import { runWorker } from './worker.ts';

export type Role = 'all' | 'api' | 'worker';

const SHUTDOWN_GRACE_MS = 30_000;

/**
 * Runs the service until SIGINT/SIGTERM: migrations, the chain, then the API and checkout servers and/or the
 * background jobs of `role`. On a signal it stops taking requests, lets in-flight ones and the current job
 * passes finish, then closes the database and the sandbox chain.
 */
/**
 * Resolves at the first SIGINT or SIGTERM. The handlers stay for every later one: Ctrl-C under `npm start`
 * delivers SIGINT twice (the terminal sends it to npm and to us, and npm forwards its own), and a second signal
 * with no handler would kill the process before it has drained its servers and stopped its chain.
 */
function stopSignal(logger: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, stopping ? 'already shutting down' : 'shutting down');
      stopping = true;
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function serve(config: Config, logger: Logger, role: Role): Promise<void> {
  // Listened for before anything starts: a SIGTERM while starting (a supervisor that gives up, a quick Ctrl-C)
  // must still stop the chain and release the locks, once starting is done, rather than kill the process.
  const stopRequested = stopSignal(logger);
  const sqlitePath = config.databaseUrl.startsWith('sqlite:')
    ? config.databaseUrl.slice('sqlite:'.length)
    : undefined;
  const releaseProcessLock = sqlitePath ? acquireSqliteProcessLock(sqlitePath) : () => {};
  if (role !== 'worker') {
    try {
      await refuseTakenPorts(config.host, [
        { port: config.apiPort, variable: 'PAYLINK_API_PORT' },
        { port: config.checkoutPort, variable: 'PAYLINK_CHECKOUT_PORT' },
      ]);
      if (config.network === 'sandbox') await refuseOtherSandboxInbox(config);
    } catch (error) {
      releaseProcessLock();
      throw error;
    }
  }
  const locks = sqlitePath ? inProcessSingletonLocks() : postgresSingletonLocks(config.databaseUrl);
  const database = openConfiguredDatabase(config);
  const applied = await migrateToLatest(database.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  const stores = createStores(database);
  const clock = systemClock;
  const stateDir = stateDirOf(config);
  let chains: ResolvedChain[];
  try {
    chains = await resolveChains(config, stateDir, logger);
  } catch (error) {
    await database.close();
    releaseProcessLock();
    throw error;
  }

  // One registry per process: the API serves it on /metrics; the worker feeds it the relayer's balance.
  const metrics = createMetrics();
  const servers: FastifyInstance[] = [];
  const closers: (() => Promise<void>)[] = [];
  const stopWorker = new AbortController();
  let worker: Promise<void> = Promise.resolve();
  try {
    if (role !== 'worker') {
      const views = chainViews(chains, clock, logger);
      const { deposits } = views;
      const paymentChanges = database.followPaymentChanges(logger);
      closers.push(paymentChanges.close);
      const rates = createRates(config, clock, logger);
      const api = await buildApp({
        ...stores,
        paymentChanges,
        explorers: views.explorers,
        tokenControls: views.tokenControls,
        deposits,
        hostResolver,
        metrics,
        chainProbe: views.chainProbe,
        testChainProbe: views.testChainProbe,
        rates,
        clock,
        logger,
        config,
      });
      servers.push(api);
      await api.listen({ host: config.host, port: config.apiPort });
      const gaslessBuckets = checkoutBuckets(config, logger);
      closers.push(() => gaslessBuckets.close());
      const checkout = await buildCheckoutApp({
        refundClaims: checkoutRefunds(stores, deposits, chains, clock),
        linkPages: {
          // A payment made from a link's page is the API's: the same pipeline, rates and limits.
          pay: {
            ...stores,
            deposits,
            rates,
            clock,
            tokenControls: views.tokenControls,
            hostResolver,
            paymentTtlMs: config.paymentTtlMs,
            maxAmountBaseUnits: config.maxAmountBaseUnits,
            minAmountBaseUnits: config.minAmountBaseUnits,
            webhookAllowPrivate: config.webhookAllowPrivate,
          },
          buckets: gaslessBuckets,
        },
        ...stores,
        clock,
        logger,
        connectionLimits: config.connectionLimits,
        gasless: checkoutGasless(stores, chains, clock, logger, {
          buckets: gaslessBuckets,
          minValueBaseUnits: config.minAmountBaseUnits,
        }),
        // Each payment is shown on its own chain: the live one, or the test one for test-mode payments.
        network: views.checkoutNetworks,
      });
      servers.push(checkout);
      await checkout.listen({ host: config.host, port: config.checkoutPort });
    }
    if (role !== 'api')
      worker = runWorker({ ...stores, locks, clock, logger, config, chains }, stopWorker.signal);
    if (config.network === 'sandbox' && role !== 'worker') {
      const demo = await ensureDemoMerchant(
        { merchants: stores.merchants, clock, webhookAllowPrivate: true },
        stateDir,
        `http://${config.host}:${config.sandboxWebhookPort}/webhooks`,
      );
      const merchant = await stores.merchants.find(demo.merchantId);
      if (merchant) {
        // A convenience, not a dependency: with several sandbox API processes the first one serves it.
        const inbox = await startSandboxWebhookInbox(
          {
            host: config.host,
            port: config.sandboxWebhookPort,
            secret: merchant.webhookSecret,
            merchantId: merchant.id,
          },
          logger,
        ).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EADDRINUSE') throw error;
          logger.warn(
            { port: config.sandboxWebhookPort },
            'sandbox webhook inbox port in use: another process serves it',
          );
          return undefined;
        });
        if (inbox) closers.push(inbox.close);
      }
      const users = await ensureDemoUsers(
        {
          users: stores.users,
          merchants: stores.merchants,
          passwords: scryptPasswords(),
          isCommonPassword,
          clock,
        },
        stateDir,
        demo.merchantId,
      );
      printSandboxBanner(config, { ...demo, webhookSecret: merchant?.webhookSecret }, users);
    }
  } catch (error) {
    stopWorker.abort();
    await Promise.all([...servers.map((s) => s.close()), ...closers.map((close) => close())]);
    await stopChains(chains);
    await database.close();
    releaseProcessLock();
    throw error;
  }

  await stopRequested;
  stopWorker.abort();
  // Draining waits for in-flight requests and job passes; one that hangs must not keep the process forever.
  const forceExit = setTimeout(() => {
    logger.error({ afterMs: SHUTDOWN_GRACE_MS }, 'shutdown did not finish in time: exiting anyway');
    process.exit(1);
  }, SHUTDOWN_GRACE_MS);
  forceExit.unref();
  await Promise.all([...servers.map((s) => s.close()), ...closers.map((close) => close()), worker]);
  await stopChains(chains);
  await database.close();
  releaseProcessLock();
  logger.info('stopped');
}

/**
 * The demo merchant's webhook inbox port may be held by another process of this sandbox, which serves it for
 * both; held by anything else (another sandbox's inbox above all), this sandbox's webhooks would go there and
 * fail its signature check, so the start stops, naming the variable.
 */
async function refuseOtherSandboxInbox(config: Config): Promise<void> {
  const port = config.sandboxWebhookPort;
  if (port === 0 || (await portIsFree(config.host, port))) return;
  const saved = readSandboxMerchantId(stateDirOf(config));
  const serving = await sandboxInboxMerchant(config.host, port);
  if (saved !== undefined && serving === saved) return;
  throw new StartRefusedError(
    `port ${port} on ${config.host} is in use by another sandbox or program: set PAYLINK_SANDBOX_WEBHOOK_PORT to a free port, such as ${await someFreePort(config.host)}`,
  );
}

/**
 * The checkout's rate-limit buckets for signed transfers: in Redis where PAYLINK_REDIS_URL is set, as the API's
 * rate limit, so that every API process counts each payment and client in one bucket; else in this process's
 * memory (one API process). The caller closes it.
 */
export function checkoutBuckets(
  config: Pick<Config, 'rateLimit'>,
  logger: Logger,
  keyPrefix?: string,
): RateLimitStore {
  const { redisUrl } = config.rateLimit;
  return redisUrl
    ? redisBucketStore({ url: redisUrl, logger, ...(keyPrefix === undefined ? {} : { keyPrefix }) })
    : memoryBucketStore();
}

/**
 * Gasless payment on the chains whose gasless relayer has a key (decision 0012), or undefined where none has.
 * Submissions are rate limited in `buckets` (`checkoutBuckets`).
 */
function checkoutGasless(
  stores: ReturnType<typeof createStores>,
  chains: readonly ResolvedChain[],
  clock: Clock,
  logger: Logger,
  limits: { readonly buckets: RateLimitStore; readonly minValueBaseUnits: bigint },
): CheckoutGasless | undefined {
  const offered = new Map<number, AuthorizationChain>();
  for (const chain of chains) {
    if (!chain.gaslessRelayerKey || offered.has(chain.target.chainId)) continue;
    const relayerAddress = privateKeyToAccount(chain.gaslessRelayerKey).address;
    const client = createRpcClient(chain.rpcUrls, 2_000);
    offered.set(chain.target.chainId, authorizationChain(client, chain.target.chainId, relayerAddress));
  }
  if (offered.size === 0) return undefined;
  const deps = {
    payments: stores.payments,
    ledger: stores.ledger,
    gasless: stores.gaslessAuthorizations,
    chains: [...offered.values()],
    clock,
    minValueBaseUnits: limits.minValueBaseUnits,
  };
  return {
    async domainFor(chainId, token) {
      try {
        return await offered.get(chainId)?.domainOf(token);
      } catch (error) {
        // A node that does not answer: the page offers the transfer with gas meanwhile.
        logger.warn({ err: error, chainId }, 'could not read the token’s EIP-712 domain');
        return undefined;
      }
    },
    accept: (input) => acceptAuthorization(deps, input),
    amountDue: (payment) => gaslessAmountDue(deps, payment),
    buckets: limits.buckets,
  };
}

/**
 * Refund claim pages: the same checks and planning as the merchant API's, and a look at the chain for code at
 * the address (the page warns before a contract). Claims are rate limited in this process's memory.
 */
function checkoutRefunds(
  stores: ReturnType<typeof createStores>,
  deposits: DepositPlanners,
  chains: readonly ResolvedChain[],
  clock: Clock,
): CheckoutRefunds {
  const clients = new Map<number, ReturnType<typeof createRpcClient>>();
  for (const chain of chains) clients.set(chain.target.chainId, createRpcClient(chain.rpcUrls, 2_000));
  return {
    claim: { refunds: stores.refunds, deposits, clock },
    async isContract(chainId, address) {
      const client = clients.get(chainId);
      if (!client) throw new Error(`no RPC client for chain ${chainId}`);
      return holdsCode(client, address);
    },
    buckets: memoryBucketStore(),
  };
}

function printSandboxBanner(
  config: Config,
  demo: {
    merchantId: string;
    apiKey: string;
    testApiKey?: string | undefined;
    webhookSecret?: string | undefined;
  },
  users: SandboxUsers,
): void {
  const lines = [
    '',
    '  Paylink sandbox',
    `  API            ${config.baseUrl}   (reference: ${config.baseUrl}/docs)`,
    `  Checkout       ${config.checkoutUrl}/pay/<payment_id>   (the payment_url of each payment)`,
    `  Demo merchant  ${demo.merchantId}   (its webhooks are received, verified and logged by the sandbox)`,
    `  API key        ${demo.apiKey}`,
    ...(demo.testApiKey && config.testChain
      ? [`  Test API key   ${demo.testApiKey}   (test mode: same local chain, livemode false)`]
      : []),
    // So that a merchant's own receiver, or the SDK's verifyWebhook, can check the demo's webhooks at once.
    ...(demo.webhookSecret
      ? [
          `  Webhook secret ${demo.webhookSecret}   (verifyWebhook in @paylink/client checks signatures with it)`,
        ]
      : []),
    config.adminToken
      ? `  Admin API      ${config.baseUrl}/admin/api/   (Authorization: Bearer $PAYLINK_ADMIN_TOKEN)`
      : '  Admin API      off: set PAYLINK_ADMIN_TOKEN (24+ random characters) to serve /admin/api/',
    `  Dashboard      ${config.baseUrl}/dashboard/`,
    `    merchant     ${users.merchant.email}   password ${users.merchant.password}`,
    `    operator     ${users.operator.email}   password ${users.operator.password}`,
    '',
    '  Try it:',
    `  curl -s -X POST ${config.baseUrl}/payments/api/create/ \\`,
    `    -H "X-API-Key: ${demo.apiKey}" -H "Content-Type: application/json" \\`,
    `    -d '{"amount": 25.00, "currency": "EUR", "order_id": "order-1"}'`,
    '  npm run --silent paylink -- sandbox pay <payment_id>      # pay it from the sandbox customer',
    '',
  ];
  // The sandbox key is for a local demo only; printing it is the point of the banner.
  process.stdout.write(`${lines.join('\n')}\n`);
}
