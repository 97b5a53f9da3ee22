import { Command, Option } from 'commander';
import pino from 'pino';
import { AnvilMissingError } from '../adapters/chain/anvilProcess.ts';
import { migrateToLatest } from '../adapters/db/database.ts';
import { DatabaseInUseError } from '../adapters/db/sqliteProcessLock.ts';
import { StartRefusedError } from '../adapters/web/freePorts.ts';
import { type Config, ConfigError, loadConfig } from '../config/index.ts';
import { PaylinkError, problemsText } from '../domain/errors.ts';
import { registerChainCommands } from './commands/chain.ts';
import { registerMailCommands } from './commands/mail.ts';
import { registerMerchantCommands } from './commands/merchants.ts';
import { registerPaymentCommands } from './commands/payments.ts';
import { registerRefundCommands } from './commands/refunds.ts';
import { registerSettlementCommands } from './commands/settlements.ts';
import { registerUserCommands } from './commands/users.ts';
import { registerWebhookCommands } from './commands/webhooks.ts';
import { createLogger, logDestination } from './logger.ts';
import type { Role } from './server.ts';
import { complain, out, type Terminal, terminal, withTerminal } from './terminal.ts';
import { openConfiguredDatabase } from './wiring.ts';

/** `paylink …`: the operator's command line. Each command only wires adapters and calls app/. */

function buildCli(config: () => Config): Command {
  const program = new Command('paylink')
    .description('Paylink: USDC payment links on Polygon')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => terminal().stdout(text),
      writeErr: (text) => terminal().stderr(text),
    });

  program
    .command('serve')
    .description('run the service (sandbox by default: SQLite, demo merchant)')
    .addOption(
      new Option('--role <role>', 'which part to run').choices(['all', 'api', 'worker']).default('all'),
    )
    .action(async (options: { role: Role }) => {
      const cfg = config();
      // Loaded here: the HTTP servers and the worker are most of the code, and no other command needs them.
      const { serve } = await import('./server.ts');
      await serve(cfg, createLogger(cfg.logLevel, logDestination(process.stdout)), options.role);
    });

  program
    .command('migrate')
    .description('apply database migrations')
    .action(async () => {
      const database = openConfiguredDatabase(config());
      try {
        const applied = await migrateToLatest(database.db);
        out(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`);
      } finally {
        await database.close();
      }
    });

  registerMerchantCommands(program, config);
  registerChainCommands(program, config);
  registerPaymentCommands(program, config);
  registerRefundCommands(program, config);
  registerUserCommands(program, config);
  registerSettlementCommands(program, config);
  registerWebhookCommands(program, config);
  registerMailCommands(program, config);
  return program;
}

/** The fields the use cases name, as the flags a person typed them with (`wallet_address` is `--wallet`). */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  wallet_address: '--wallet',
  webhook_url: '--webhook-url',
  commission_percent: '--commission',
  underpayment_tolerance_percent: '--tolerance',
  name: '--name',
  grace: '--grace',
  address: '--address-line',
  tax_id: '--tax-id',
  scopes: '--scopes',
  expires_at: '--expires-at',
  expires_in: '--expires-in',
};

function inFlags(error: Error): string {
  if (!(error instanceof PaylinkError)) return error.message;
  return problemsText(error, (field) => FLAG_OF_FIELD[field] ?? field);
}

/**
 * Runs one command and answers its exit code. `env` and `terminal` default to the process's own: the test suite
 * gives its own to run commands without starting a process for each.
 */
export function main(
  argv: string[],
  { env = process.env, terminal: given }: { env?: NodeJS.ProcessEnv; terminal?: Terminal } = {},
): Promise<number> {
  return withTerminal(given, () => run(argv, env));
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let loaded: Config | undefined;
  const config = () => {
    loaded ??= loadConfig(env);
    return loaded;
  };
  try {
    await buildCli(config).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (
      error instanceof ConfigError ||
      error instanceof PaylinkError ||
      error instanceof DatabaseInUseError ||
      error instanceof AnvilMissingError ||
      error instanceof StartRefusedError
    ) {
      complain(`error: ${inFlags(error)}`);
      return 2;
    }
    if (error instanceof Error && 'exitCode' in error && typeof error.exitCode === 'number') {
      return error.exitCode; // commander has already printed its usage message, or the command its listing
    }
    pino({ level: 'error' }, { write: (line: string) => terminal().stderr(line) }).error(
      { err: error },
      'command failed',
    );
    return 1;
  }
}
