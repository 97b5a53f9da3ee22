import { type Command, Option } from 'commander';
import { describeReceiptDetails } from '../../adapters/api/routes/adminReceiptDetailsApi.ts';
import { createRpcClient } from '../../adapters/chain/chainReader.ts';
import { forwarderImplementationOf } from '../../adapters/chain/depositPlanner.ts';
import { createTokenControls } from '../../adapters/chain/tokenControls.ts';
import { migrateToLatest } from '../../adapters/db/database.ts';
import type { BrandStore } from '../../app/brand/ports.ts';
import { updateReceiptDetails } from '../../app/brand/updateBrand.ts';
import type { TokenControls } from '../../app/chain/tokenControls.ts';
import {
  createMerchant,
  describeMerchant,
  disableMerchant,
  enableMerchant,
  getMerchant,
  type IssuedCredentials,
  listMerchants,
  type MerchantAdminDeps,
  type MerchantFields,
  rotateApiKey,
  updateMerchant,
} from '../../app/merchants/merchantAdmin.ts';
import { systemClock } from '../../app/shared/ports.ts';
import type { ChainSettings, Config } from '../../config/index.ts';
import type { KeyMode } from '../../domain/credentials.ts';
import { parseDuration } from '../../domain/duration.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { Merchant } from '../../domain/merchant.ts';
import { readSandboxContracts, stateDirOf } from '../../sandbox/chain.ts';
import { complain, out } from '../terminal.ts';
import { createStores, hostResolver, openConfiguredDatabase } from '../wiring.ts';
import { registerKeyCommands } from './keys.ts';

/** `paylink merchant …`: merchant accounts, which administrators alone create and change. */
export function registerMerchantCommands(program: Command, config: () => Config): void {
  const merchant = program.command('merchant').description('merchant accounts (administrators only)');
  registerAccountCommands(merchant, config);
  registerAccessCommands(merchant, config);
  registerReceiptDetailsCommand(merchant, config);
  registerKeyCommands(merchant, config);
}

/** receipt-details: the address and tax id printed on the merchant's receipts (decision 0057). */
function registerReceiptDetailsCommand(merchant: Command, config: () => Config): void {
  merchant
    .command('receipt-details <public_id>')
    .description("set the address and tax id on a merchant's receipts; without options, show them")
    .option('--address-line <line>', 'a line of the address (repeat it, in order)', collect, undefined)
    .option('--clear-address', 'remove the address')
    .option('--tax-id <id>', 'tax or VAT id, e.g. DE123456789 ("" removes it)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: ReceiptDetailsOptions) => {
      const address = options.clearAddress ? '' : options.addressLine?.join('\n');
      const view = await withAdmin(config(), async (deps) => {
        const found = await getMerchant(deps, id);
        const brands = { brands: deps.brands, clock: systemClock };
        const brand =
          address === undefined && options.taxId === undefined
            ? await deps.brands.find(found.id)
            : await updateReceiptDetails(brands, found.id, { address, taxId: options.taxId });
        return describeReceiptDetails(found.id, brand);
      });
      if (options.json) return out(JSON.stringify(view));
      out(`  public_id       ${view.public_id}`);
      out(`  address         ${view.address_lines.join('\n                  ') || '(none)'}`);
      out(`  tax id          ${view.tax_id ?? '(none)'}`);
    });
}

interface ReceiptDetailsOptions {
  addressLine?: string[];
  clearAddress?: boolean;
  taxId?: string;
  json?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** create, list, show and update. */
function registerAccountCommands(merchant: Command, config: () => Config): void {
  const withFieldOptions = (command: Command) =>
    command
      .option('--wallet <address>', 'Polygon address that receives payouts')
      .option('--webhook-url <url>', 'default webhook URL')
      .option('--commission <percent>', 'commission in percent, e.g. 1.5')
      .option('--tolerance <percent>', 'underpayment tolerated, in percent of the amount due')
      .option('--receipts <on|off>', 'e-mail customers who gave an address a receipt when paid (default on)')
      .option('--json', 'print JSON');

  withFieldOptions(merchant.command('create').description('create a merchant and print its API key once'))
    .requiredOption('--name <name>', 'merchant name')
    .option('--test-key', 'also issue a test-mode key (sk_test_…: payments on the test network only)')
    .action(async (options: FieldOptions & { name: string; json?: boolean; testKey?: boolean }) => {
      const issued = await withAdmin(config(), (deps) =>
        createMerchant(
          deps,
          {
            ...fieldsFrom(options),
            commissionPercent: options.commission ?? '0',
            name: options.name,
          },
          { testKey: options.testKey === true },
        ),
      );
      if (options.json) {
        out(
          JSON.stringify({
            merchant: describeMerchant(issued.merchant),
            api_key: issued.apiKey,
            ...(issued.testApiKey ? { test_api_key: issued.testApiKey } : {}),
            webhook_secret: issued.merchant.webhookSecret,
          }),
        );
      } else {
        printCredentials('Merchant created.', issued, issued.merchant.webhookSecret);
      }
    });

  merchant
    .command('list')
    .description('list merchants')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const merchants = await withAdmin(config(), (deps) => listMerchants(deps));
      if (options.json) return out(JSON.stringify({ merchants: merchants.map(describeMerchant) }));
      if (merchants.length === 0)
        return out('No merchants yet. Create one with: paylink merchant create --name …');
      const row = (id: string, status: string, commission: string, name: string) =>
        out(`${id.padEnd(26)}  ${status.padEnd(8)}  ${commission.padStart(10)}  ${name}`);
      row('PUBLIC ID', 'STATUS', 'COMMISSION', 'NAME');
      for (const m of merchants) {
        const v = describeMerchant(m);
        row(v.public_id, v.status, `${v.commission_percent}%`, v.name);
      }
    });

  merchant
    .command('show <public_id>')
    .description('show a merchant')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const found = await withAdmin(config(), (deps) => getMerchant(deps, id));
      if (options.json) return out(JSON.stringify(describeMerchant(found)));
      printMerchant(found);
    });

  withFieldOptions(merchant.command('update <public_id>').description('change a merchant'))
    .option('--name <name>', 'merchant name')
    .action(async (id: string, options: FieldOptions & { json?: boolean }) => {
      const updated = await withAdmin(config(), (deps) => updateMerchant(deps, id, fieldsFrom(options)));
      if (options.json) return out(JSON.stringify(describeMerchant(updated)));
      out('Merchant updated.');
      printMerchant(updated);
    });
}

/** What a merchant's keys may do: rotate-key, disable and enable. */
function registerAccessCommands(merchant: Command, config: () => Config): void {
  merchant
    .command('rotate-key <public_id>')
    .description('issue a new API key; the old one works until the grace period ends')
    .option('--grace <duration>', 'how long the old key keeps working (e.g. 24h)', '0')
    .addOption(
      new Option('--mode <mode>', 'which key: live, or test (the other mode keeps its key)')
        .choices(['live', 'test'])
        .default('live'),
    )
    .option('--json', 'print JSON')
    .action(async (id: string, options: { grace: string; mode: KeyMode; json?: boolean }) => {
      const graceMs = parseDuration(options.grace);
      if (graceMs === undefined)
        throw new PaylinkError('VALIDATION_ERROR', 'grace: must be a duration such as 30m or 24h');
      const issued = await withAdmin(config(), (deps) => rotateApiKey(deps, id, graceMs, options.mode));
      if (options.json)
        return out(
          JSON.stringify({
            merchant: describeMerchant(issued.merchant),
            api_key: issued.apiKey,
            mode: issued.mode,
          }),
        );
      const which = options.mode === 'test' ? 'test API key' : 'API key';
      printCredentials(
        `New ${which} issued; the old ${which} ${graceMs > 0 ? `works for ${options.grace} more` : 'no longer works'}.`,
        issued,
      );
    });

  merchant
    .command('disable <public_id>')
    .description(
      'disable a merchant: its API keys stop working and its dashboard users are signed out, at once',
    )
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const disabled = await withAdmin(config(), (deps) => disableMerchant(deps, id));
      if (options.json) return out(JSON.stringify(describeMerchant(disabled)));
      out(`Merchant ${disabled.id} disabled.`);
    });

  merchant
    .command('enable <public_id>')
    .description('enable a disabled merchant: its API keys (those not rotated out since) work again')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const enabled = await withAdmin(config(), (deps) => enableMerchant(deps, id));
      if (options.json) return out(JSON.stringify(describeMerchant(enabled)));
      out(`Merchant ${enabled.id} enabled.`);
    });
}

/** Opens the database (migrated), runs one admin operation, closes it. */
async function withAdmin<T>(
  config: Config,
  run: (deps: MerchantAdminDeps & { readonly brands: BrandStore }) => Promise<T>,
): Promise<T> {
  const database = openConfiguredDatabase(config);
  try {
    await migrateToLatest(database.db);
    const { merchants, refunds, brands } = createStores(database);
    return await run({
      merchants,
      brands,
      clock: systemClock,
      webhookAllowPrivate: config.webhookAllowPrivate,
      hostResolver,
      tokenControls: liveTokenControls(config),
      defaultToleranceBps: config.defaultToleranceBps,
      deposits: serviceContracts(config),
      depositAddresses: refunds,
    });
  } finally {
    await database.close();
  }
}

/**
 * The live token's controls, when this machine knows the token and a node: a payout wallet the token blacklists
 * is refused. Unreachable, the wallet is not checked (said on stderr), as the API does.
 */
function liveTokenControls(config: Config): TokenControls | undefined {
  const token =
    config.liveHomeChain.usdcAddress ??
    (config.network === 'sandbox' ? readSandboxContracts(stateDirOf(config))?.usdc : undefined);
  if (token === undefined || config.liveHomeChain.rpcUrls.length === 0) return undefined;
  return createTokenControls({
    client: createRpcClient(config.liveHomeChain.rpcUrls, 2_000),
    token,
    clock: systemClock,
    logger: { warn: (_fields, message) => complain(`warning: ${message}`) },
  });
}

/**
 * The contracts deposits go through on each chain this machine knows the addresses of (from the configuration,
 * or the sandbox's own deployment): a merchant's wallet may be none of them. Unknown, they are not checked.
 */
function serviceContracts(config: Config): MerchantAdminDeps['deposits'] {
  const sandbox = config.network === 'sandbox' ? readSandboxContracts(stateDirOf(config)) : undefined;
  const contractsOf = (chain: ChainSettings, deployed: typeof sandbox) => {
    const token = chain.usdcAddress ?? deployed?.usdc;
    const factory = chain.factoryAddress ?? deployed?.factory;
    const contracts = [
      ...(token ? [token] : []),
      ...(factory ? [factory, forwarderImplementationOf(factory)] : []),
    ];
    return contracts.length > 0 ? { chainId: chain.chainId, contracts } : undefined;
  };
  const live = contractsOf(config.liveHomeChain, sandbox);
  if (!live) return undefined;
  // A test chain on the live chain's id is the live chain itself; another one has only its configured addresses.
  const test =
    config.testHomeChain && config.testHomeChain.chainId !== live.chainId
      ? contractsOf(config.testHomeChain, undefined)
      : undefined;
  return { live, test };
}

function printMerchant(merchant: Merchant): void {
  const view = describeMerchant(merchant);
  out(`  public_id       ${view.public_id}`);
  out(`  name            ${view.name}`);
  out(`  status          ${view.status}`);
  out(`  wallet          ${view.wallet_address ?? '(not set: payments cannot be created)'}`);
  out(`  webhook URL     ${view.webhook_url ?? '(not set: payments cannot be created)'}`);
  out(`  commission      ${view.commission_percent}%`);
  out(`  underpayment    ${view.underpayment_tolerance_percent}% tolerated`);
  out(`  receipts        ${view.send_receipts ? 'on' : 'off'}`);
}

function printCredentials(title: string, issued: IssuedCredentials, webhookSecret?: string): void {
  out(title);
  printMerchant(issued.merchant);
  out(`  ${issued.mode === 'test' ? 'test API key' : 'API key     '}    ${issued.apiKey}`);
  if (issued.testApiKey) out(`  test API key    ${issued.testApiKey}`);
  out('                  (shown once: store it in your secret manager now)');
  if (webhookSecret) out(`  webhook secret  ${webhookSecret}`);
}

interface FieldOptions {
  name?: string;
  wallet?: string;
  webhookUrl?: string;
  commission?: string;
  tolerance?: string;
  receipts?: string;
}

function fieldsFrom(options: FieldOptions): MerchantFields {
  return {
    name: options.name,
    wallet: options.wallet,
    webhookUrl: options.webhookUrl,
    commissionPercent: options.commission,
    underpaymentTolerancePercent: options.tolerance,
    sendReceipts: receiptsOption(options.receipts),
  };
}

function receiptsOption(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new ValidationError('receipts', 'must be on or off');
}
