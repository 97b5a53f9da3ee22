import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { depositPlanner } from '../adapters/chain/depositPlanner.ts';
import { migrateToLatest } from '../adapters/db/database.ts';
import { buildApp } from '../adapters/http/buildApp.ts';
import { systemClock } from '../app/ports.ts';
import type { Config } from '../config.ts';
import { resolveChain } from './chainSetup.ts';
import { ensureDemoMerchant } from './sandbox.ts';
import { createRates, createStores, openConfiguredDatabase } from './wiring.ts';
import { runWorker } from './worker.ts';

export type Role = 'all' | 'api' | 'worker';

/** Where the sandbox keeps its state: beside the SQLite database, or ./data. */
export function stateDirOf(config: Config): string {
  const dir = config.databaseUrl.startsWith('sqlite:')
    ? dirname(config.databaseUrl.slice('sqlite:'.length))
    : 'data';
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Runs the service until SIGINT/SIGTERM: migrations, the chain, then the API and checkout servers and/or the
 * background jobs of `role`. On a signal it stops taking requests, lets in-flight ones and the current job
 * passes finish, then closes the database and the sandbox chain.
 */
export async function serve(config: Config, logger: Logger, role: Role): Promise<void> {
  const database = openConfiguredDatabase(config);
  const applied = await migrateToLatest(database.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  const stores = createStores(database);
  const clock = systemClock;
  const stateDir = stateDirOf(config);
  const chain = await resolveChain(config, stateDir, logger);

  const servers: FastifyInstance[] = [];
  const stopWorker = new AbortController();
  let worker: Promise<void> = Promise.resolve();
  try {
    if (role !== 'worker') {
      const api = await buildApp({
        ...stores,
        deposits: depositPlanner(chain.target),
        rates: createRates(config, clock, logger),
        clock,
        logger,
        config,
      });
      servers.push(api);
      await api.listen({ host: config.host, port: config.apiPort });
    }
    if (role !== 'api') worker = runWorker({ ...stores, clock, logger, config, chain }, stopWorker.signal);
    if (config.network === 'sandbox' && role !== 'worker') {
      const demo = await ensureDemoMerchant(
        { merchants: stores.merchants, clock, webhookAllowPrivate: true },
        stateDir,
        'http://127.0.0.1:4242/webhooks',
      );
      printSandboxBanner(config, demo);
    }
  } catch (error) {
    stopWorker.abort();
    await Promise.all(servers.map((s) => s.close()));
    await chain.stop();
    await database.close();
    throw error;
  }

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  stopWorker.abort();
  await Promise.all([...servers.map((s) => s.close()), worker]);
  await chain.stop();
  await database.close();
  logger.info('stopped');
}

function printSandboxBanner(config: Config, demo: { merchantId: string; apiKey: string }): void {
  const lines = [
    '',
    '  Paylink sandbox',
    `  API            ${config.baseUrl}   (reference: ${config.baseUrl}/docs)`,
    `  Checkout       ${config.checkoutUrl}/pay/<payment_id>`,
    `  Demo merchant  ${demo.merchantId}`,
    `  API key        ${demo.apiKey}`,
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
