import { type Command, Option } from 'commander';
import { keyResponse } from '../../adapters/api/routes/keyApi.ts';
import { migrateToLatest } from '../../adapters/db/database.ts';
import { getMerchant } from '../../app/merchants/merchantAdmin.ts';
import {
  createRestrictedKey,
  listKeysOfMode,
  type RestrictedKeyDeps,
  revokeRestrictedKey,
} from '../../app/merchants/restrictedKeys.ts';
import { systemClock } from '../../app/shared/ports.ts';
import type { Config } from '../../config/index.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { parseDuration } from '../../domain/duration.ts';
import { ValidationError } from '../../domain/errors.ts';
import { out } from '../terminal.ts';
import { createStores, openConfiguredDatabase } from '../wiring.ts';

/**
 * `paylink merchant key …`: a merchant's restricted API keys (decision 0056), for the operator who sets up an
 * integration for a merchant. The same use cases as the API's `/payments/api/keys/` and the dashboard, so they
 * accept and refuse the same input; the secret key stays with `merchant rotate-key`.
 */
export function registerKeyCommands(merchant: Command, config: () => Config): void {
  const key = merchant.command('key').description("a merchant's restricted API keys (rk_…)");
  const modeOption = () =>
    new Option('--mode <mode>', 'the keys of live or test mode').choices(['live', 'test']).default('live');

  key
    .command('create <public_id>')
    .description('make a restricted key with the given scopes and print it once')
    .requiredOption('--name <name>', 'what the key is for, e.g. "Shop plugin"')
    .requiredOption('--scopes <scopes>', 'comma-separated, e.g. payments:read,payments:write')
    .option('--expires-at <time>', 'ISO 8601 time with its offset after which it stops working')
    .option('--expires-in <duration>', 'or how long from now it works, e.g. 30d or 12h')
    .addOption(modeOption())
    .option('--json', 'print JSON')
    .action(async (id: string, options: CreateOptions) => {
      const { key: secret, view } = await withKeys(config(), async (deps) => {
        const found = await getMerchant(deps, id);
        const { key, record } = await createRestrictedKey(deps, found.id, options.mode, {
          name: options.name,
          scopes: options.scopes.split(',').map((scope) => scope.trim()),
          expiresAt: expiryOf(options, deps.clock.now()),
        });
        return { key, view: keyResponse(record, deps.clock.now()) };
      });
      if (options.json) return out(JSON.stringify({ ...view, key: secret }));
      out('Restricted key created.');
      printKey(view);
      out(`  key             ${secret}`);
      out('                  (shown once: give it to the integration now)');
    });

  key
    .command('list <public_id>')
    .description("list a merchant's keys of one mode, the secret key included, working or not")
    .addOption(modeOption())
    .option('--json', 'print JSON')
    .action(async (id: string, options: { mode: KeyMode; json?: boolean }) => {
      const keys = await withKeys(config(), async (deps) => {
        const found = await getMerchant(deps, id);
        const now = deps.clock.now();
        return (await listKeysOfMode(deps, found.id, options.mode)).map((record) => keyResponse(record, now));
      });
      if (options.json) return out(JSON.stringify({ keys }));
      const row = (...cells: [string, string, string, string, string]) =>
        out(
          `${cells[0].padEnd(36)}  ${cells[1].padEnd(10)}  ${cells[2].padEnd(8)}  ${cells[3].padEnd(24)}  ${cells[4]}`,
        );
      row('ID', 'KIND', 'STATUS', 'EXPIRES', 'NAME / SCOPES');
      for (const k of keys)
        row(
          k.id,
          k.kind,
          k.status,
          k.expires_at ?? '-',
          `${k.name ?? '(secret key)'}: ${k.scopes.join(' ')}`,
        );
    });

  key
    .command('revoke <public_id> <key_id>')
    .description('revoke a restricted key at once (other processes within PAYLINK_AUTH_CACHE_TTL)')
    .addOption(modeOption())
    .option('--json', 'print JSON')
    .action(async (id: string, keyId: string, options: { mode: KeyMode; json?: boolean }) => {
      const view = await withKeys(config(), async (deps) => {
        const found = await getMerchant(deps, id);
        return keyResponse(await revokeRestrictedKey(deps, found.id, options.mode, keyId), deps.clock.now());
      });
      if (options.json) return out(JSON.stringify(view));
      out('Restricted key revoked.');
      printKey(view);
    });
}

interface CreateOptions {
  name: string;
  scopes: string;
  expiresAt?: string;
  expiresIn?: string;
  mode: KeyMode;
  json?: boolean;
}

/** The expiry as the use case takes it (ISO 8601): given as a time, or as a duration from now; not both. */
function expiryOf(options: CreateOptions, now: Date): string | undefined {
  if (options.expiresIn === undefined) return options.expiresAt;
  if (options.expiresAt !== undefined)
    throw new ValidationError('expires_in', 'give --expires-at or --expires-in, not both');
  const ms = parseDuration(options.expiresIn);
  if (ms === undefined || ms <= 0)
    throw new ValidationError('expires_in', 'must be a duration such as 12h or 30d');
  return new Date(now.getTime() + ms).toISOString();
}

function printKey(view: ReturnType<typeof keyResponse>): void {
  out(`  id              ${view.id}`);
  out(`  name            ${view.name ?? '(secret key)'}`);
  out(`  mode            ${view.livemode ? 'live' : 'test'}`);
  out(`  scopes          ${view.scopes.join(' ')}`);
  out(`  status          ${view.status}`);
  out(`  expires         ${view.expires_at ?? 'never (until revoked)'}`);
}

/** Opens the database (migrated), runs one operation on a merchant's keys, closes it. */
async function withKeys<T>(config: Config, run: (deps: RestrictedKeyDeps) => Promise<T>): Promise<T> {
  const database = openConfiguredDatabase(config);
  try {
    await migrateToLatest(database.db);
    // One moment for the whole command: a key made "for 30d" expires 30 days after the time it states it was made.
    const now = systemClock.now();
    return await run({ merchants: createStores(database).merchants, clock: { now: () => now } });
  } finally {
    await database.close();
  }
}
