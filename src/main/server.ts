import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { isCommonPassword } from '../adapters/crypto/commonPasswords.ts';
import { bridgeRepository } from '../adapters/db/bridgeRepository.ts';
import { type DatabaseHandle, migrateToLatest } from '../adapters/db/database.ts';
import { ledgerRepository } from '../adapters/db/ledgerRepository.ts';
import { inProcessSingletonLocks, postgresSingletonLocks } from '../adapters/db/singletonLocks.ts';
import { acquireSqliteProcessLock } from '../adapters/db/sqliteProcessLock.ts';
import { createMetrics } from '../adapters/metrics/metrics.ts';
import { portIsFree, refuseTakenPorts, StartRefusedError, someFreePort } from '../adapters/web/freePorts.ts';
import type { JobLocks } from '../app/operations/ports.ts';
import { type Clock, systemClock } from '../app/shared/ports.ts';
import type { Config } from '../config/index.ts';
import { stateDirOf } from '../sandbox/chain.ts';
import {
  ensureDemoMerchant,
  ensureDemoUsers,
  readSandboxMerchantId,
  type SandboxUsers,
} from '../sandbox/demo.ts';
import { sandboxInboxMerchant, startSandboxWebhookInbox } from '../sandbox/webhookInbox.ts';
import type { HomeChain } from './chains/model.ts';
import { resolveChains, stopChains } from './chains/resolveChains.ts';
import { workerBridgeOf, workerChainsOf } from './chains/workerChains.ts';
import { statusRefreshOnMint } from './mintRefresh.ts';
import { paymentPaidReactions } from './paymentPaidReactions.ts';
import { chainCancelWatching, chargeRelaying } from './pullServices.ts';
import { renewalServices } from './renewalServices.ts';
import { type WebServices, webServices } from './services.ts';
import { buildApiServer, buildCheckoutServer } from './webServers.ts';
import { createStores, openConfiguredDatabase } from './wiring.ts';
import { runWorker } from './worker.ts';

export type Role = 'all' | 'api' | 'worker';

const SHUTDOWN_GRACE_MS = 30_000;

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

/**
 * Runs the service until SIGINT/SIGTERM: migrations, the chain, then the API and checkout servers and/or the
 * background jobs of `role`. On a signal it stops taking requests, lets in-flight ones and the current job
 * passes finish, then closes the database and the sandbox chain.
 */
export async function serve(config: Config, logger: Logger, role: Role): Promise<void> {
  // Listened for before anything starts: a SIGTERM while starting (a supervisor that gives up, a quick Ctrl-C)
  // must still stop the chain and release the locks, once starting is done, rather than kill the process.
  const stopRequested = stopSignal(logger);
  const base = await openBase(config, logger, role);
  const running = await startRoles(config, logger, role, base);
  await stopRequested;
  running.stopWorker.abort();
  // Draining waits for in-flight requests and job passes; one that hangs must not keep the process forever.
  const forceExit = setTimeout(() => {
    logger.error({ afterMs: SHUTDOWN_GRACE_MS }, 'shutdown did not finish in time: exiting anyway');
    process.exit(1);
  }, SHUTDOWN_GRACE_MS);
  forceExit.unref();
  await Promise.all([
    ...running.servers.map((s) => s.close()),
    ...running.closers.map((close) => close()),
    running.worker,
  ]);
  await base.close();
  logger.info('stopped');
}

/** What every role runs on: the process lock, the migrated database and its stores, the chains. */
interface Base {
  readonly locks: JobLocks;
  readonly database: DatabaseHandle;
  readonly stores: ReturnType<typeof createStores>;
  readonly clock: Clock;
  readonly stateDir: string;
  /** Every chain this deployment serves, live first (config.chains, resolved). */
  readonly chains: readonly HomeChain[];
  /** Stops the chains, closes the database, releases the process lock. */
  readonly close: () => Promise<void>;
}

/** Takes the lock and the ports, migrates the database, starts or reaches the chains; undoes it all on failure. */
async function openBase(config: Config, logger: Logger, role: Role): Promise<Base> {
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
  const stateDir = stateDirOf(config);
  let chains: HomeChain[];
  try {
    chains = await resolveChains(config, stateDir, logger);
  } catch (error) {
    await database.close();
    releaseProcessLock();
    throw error;
  }
  const close = async () => {
    await stopChains(chains);
    await database.close();
    releaseProcessLock();
  };
  return { locks, database, stores, clock: systemClock, stateDir, chains, close };
}

/** What runs until the stop signal: the listening servers, what closes beside them, the worker's jobs. */
interface Running {
  readonly servers: FastifyInstance[];
  readonly closers: (() => Promise<void>)[];
  readonly stopWorker: AbortController;
  worker: Promise<void>;
}

/** Starts the servers and/or the worker of `role` (and the sandbox's demo); on failure stops them and `base`. */
async function startRoles(config: Config, logger: Logger, role: Role, base: Base): Promise<Running> {
  const running: Running = {
    servers: [],
    closers: [],
    stopWorker: new AbortController(),
    worker: Promise.resolve(),
  };
  try {
    const services = role === 'worker' ? undefined : await startWebServers(config, logger, base, running);
    if (role !== 'api') {
      const { stores, locks, clock, chains } = base;
      running.worker = runWorker(
        {
          ...stores,
          // Its transactions queue a paid payment's receipt (the API's ledger never marks one paid).
          ledger: ledgerRepository(base.database, paymentPaidReactions(config, workerChainsOf(chains))),
          locks,
          clock,
          logger,
          config,
          chains: workerChainsOf(chains),
          renewal: renewalServices(config, { stores, chains, clock, logger }),
          // Pull renewal's charges, paid by each chain's gasless relayer (decision 0061).
          charges: (chainId, client, relayer) =>
            chargeRelaying(
              { stores, chains, clock, logger, payoutPolicy: config.payoutPolicy },
              chainId,
              client,
              relayer,
            ),
          // Mandates canceled on chain by their customers, once final (decision 0061).
          mandateCancels: (chainId) => chainCancelWatching(stores, chains, chainId),
          // Its mints refresh their payments' status (decision 0037): the API's store reads only.
          bridge: workerBridgeOf(
            config,
            chains,
            bridgeRepository(base.database, statusRefreshOnMint(config, workerChainsOf(chains))),
          ),
        },
        running.stopWorker.signal,
      );
    }
    if (config.network === 'sandbox' && services)
      await startSandboxDemo(config, logger, base, services, running);
  } catch (error) {
    running.stopWorker.abort();
    await Promise.all([...running.servers.map((s) => s.close()), ...running.closers.map((close) => close())]);
    await base.close();
    throw error;
  }
  return running;
}

/** The API server and the checkout server, built from one set of services, listening. */
async function startWebServers(
  config: Config,
  logger: Logger,
  base: Base,
  running: Running,
): Promise<WebServices> {
  // One registry per process: the API serves it on /metrics; the worker feeds it the relayer's balance.
  const services = webServices(config, { ...base, metrics: createMetrics(), logger });
  running.closers.push(services.close);
  const api = await buildApiServer(services.api);
  running.servers.push(api);
  await api.listen({ host: config.host, port: config.apiPort });
  const checkout = await buildCheckoutServer(services.checkout);
  running.servers.push(checkout);
  await checkout.listen({ host: config.host, port: config.checkoutPort });
  return services;
}

/** The sandbox's demo merchant, its webhook inbox and its dashboard users, and the banner that names them. */
async function startSandboxDemo(
  config: Config,
  logger: Logger,
  base: Base,
  services: WebServices,
  running: Running,
): Promise<void> {
  const { stores, clock, stateDir } = base;
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
    if (inbox) running.closers.push(inbox.close);
  }
  const users = await ensureDemoUsers(
    {
      users: stores.users,
      merchants: stores.merchants,
      passwords: services.api.passwords,
      isCommonPassword,
      clock,
    },
    stateDir,
    demo.merchantId,
  );
  printSandboxBanner(config, { ...demo, webhookSecret: merchant?.webhookSecret }, users);
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
    ...(demo.testApiKey && config.testHomeChain
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
    ...sandboxChainLines(config),
    `  Dashboard      ${config.baseUrl}/dashboard/`,
    `    merchant     ${users.merchant.email}   password ${users.merchant.password}`,
    `    operator     ${users.operator.email}   password ${users.operator.password}`,
    '',
    '  Try it:',
    `  curl -s -X POST ${config.baseUrl}/payments/api/create/ \\`,
    `    -H "X-API-Key: ${demo.apiKey}" -H "Content-Type: application/json" \\`,
    `    -d '{"amount": 25.00, "currency": "EUR", "order_id": "order-1"}'`,
    '  npm run --silent paylink -- sandbox pay <payment_id>      # pay it from the sandbox customer',
    ...(config.chains.some((chain) => chain.network === 'sandbox-2')
      ? [
          '  npm run --silent paylink -- sandbox pay <payment_id> --chain sandbox-2   # or on the second chain',
        ]
      : []),
    '',
  ];
  // The sandbox key is for a local demo only; printing it is the point of the banner.
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The sandbox's chains (decision 0032): where a wallet or `cast` reaches each, and the attestation service. */
function sandboxChainLines(config: Config): string[] {
  const second = config.chains.find((chain) => chain.network === 'sandbox-2');
  if (!second) return [];
  return [
    `  Chains         ${config.liveHomeChain.chainId} at ${config.liveHomeChain.rpcUrls[0]}, ${second.chainId} at ${second.rpcUrls[0]} (sandbox-2: its USDC is burnt to the first through CCTP)`,
    ...(config.cctp
      ? [`  Attestations   ${config.cctp.attestationUrl}   (a local stand-in for Circle's)`]
      : []),
  ];
}
