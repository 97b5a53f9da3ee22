import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { depositPlanner } from '../adapters/chain/depositPlanner.ts';
import { migrateToLatest } from '../adapters/db/database.ts';
import { buildApp } from '../adapters/http/buildApp.ts';
import { systemClock } from '../app/ports.ts';
import { type Config, requireChainSetting } from '../config.ts';
import { ensureDemoMerchant } from './sandbox.ts';
import { createRates, createStores, openConfiguredDatabase } from './wiring.ts';

export type Role = 'all' | 'api' | 'worker';

/** Where the sandbox keeps its state: beside the SQLite database, or ./data. */
function sandboxStateDir(config: Config): string {
  const dir = config.databaseUrl.startsWith('sqlite:')
    ? dirname(config.databaseUrl.slice('sqlite:'.length))
    : 'data';
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs the service until SIGINT/SIGTERM: migrations, then the API (and, later, the workers) of `role`. */
export async function serve(config: Config, logger: Logger, role: Role): Promise<void> {
  if (role === 'worker') {
    throw new Error('there are no background jobs in this version yet; run with --role api or all');
  }
  const database = openConfiguredDatabase(config);
  const applied = await migrateToLatest(database.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
  const stores = createStores(database);
  const clock = systemClock;

  if (config.network === 'sandbox') {
    const demo = await ensureDemoMerchant(
      { merchants: stores.merchants, clock, webhookAllowPrivate: true },
      sandboxStateDir(config),
      'http://127.0.0.1:4242/webhooks',
    );
    printSandboxBanner(config, demo);
  }

  const deposits = depositPlanner({
    chainId: config.chain.chainId,
    tokenAddress: requireChainSetting(config, 'usdcAddress', 'PAYLINK_USDC_ADDRESS'),
    factoryAddress: requireChainSetting(config, 'factoryAddress', 'PAYLINK_FACTORY_ADDRESS'),
    treasuryAddress: requireChainSetting(config, 'treasuryAddress', 'PAYLINK_TREASURY_ADDRESS'),
  });
  const app = await buildApp({
    ...stores,
    deposits,
    rates: createRates(config, clock, logger),
    clock,
    logger,
    config,
  });
  await app.listen({ host: config.host, port: config.apiPort });

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await app.close();
    await database.close();
  };
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => void shutdown(signal).then(resolve));
    }
  });
}

function printSandboxBanner(config: Config, demo: { merchantId: string; apiKey: string }): void {
  const lines = [
    '',
    '  Paylink sandbox',
    `  API            ${config.baseUrl}   (reference: ${config.baseUrl}/docs)`,
    `  Demo merchant  ${demo.merchantId}`,
    `  API key        ${demo.apiKey}`,
    '',
    '  Try it:',
    `  curl -s -X POST ${config.baseUrl}/payments/api/create/ \\`,
    `    -H "X-API-Key: ${demo.apiKey}" -H "Content-Type: application/json" \\`,
    `    -d '{"amount": 25.00, "currency": "EUR", "order_id": "order-1"}'`,
    '',
  ];
  // The sandbox key is for a local demo only; printing it is the point of the banner.
  process.stdout.write(`${lines.join('\n')}\n`);
}
