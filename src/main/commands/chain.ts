import type { Command } from 'commander';
import { type Address, createWalletClient, getAddress, http, isAddress } from 'viem';
import { testUsdcAbi } from '../../adapters/chain/contractAbis.ts';
import { migrateToLatest } from '../../adapters/db/database.ts';
import { isPaymentId } from '../../app/payments/getPaymentStatus.ts';
import { type ChainMode, type Config, ConfigError, SANDBOX_RPC_URL } from '../../config/index.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import { formatUsdc, parseUsdc } from '../../domain/money.ts';
import {
  readSandboxContracts,
  SANDBOX_ACCOUNTS,
  sandboxAccount,
  sandboxChain,
  stateDirOf,
} from '../../sandbox/chain.ts';
import { readSandboxCrossChain } from '../../sandbox/crossChain.ts';
import {
  checkFactoryV3OnChains,
  deployFactoryV3OnChains,
  type FactoryV3Report,
} from '../factoryV3Deployment.ts';
import { out } from '../terminal.ts';
import { createStores, openConfiguredDatabase } from '../wiring.ts';

/** `paylink contracts deploy` and `paylink sandbox pay`: the commands that touch the chain. */
export function registerChainCommands(program: Command, config: () => Config): void {
  registerContractCommands(program, config);
  registerSandboxPay(program, config);
}

function registerContractCommands(program: Command, config: () => Config): void {
  const contracts = program.command('contracts').description('forwarder contracts');
  const factoryCommand = (
    name: string,
    description: string,
    run: (config: Config, mode: ChainMode) => Promise<FactoryV3Report>,
  ) =>
    contracts
      .command(name)
      .description(description)
      .option(
        '--mode <mode>',
        'live (PAYLINK_NETWORK, PAYLINK_CHAINS) or test (PAYLINK_TEST_NETWORK, PAYLINK_TEST_CHAINS)',
        'live',
      )
      .option('--json', 'print JSON')
      .action(async (options: { json?: boolean; mode: string }) => {
        printFactoryV3(await run(config(), modeOption(options.mode)), options);
      });
  factoryCommand(
    'deploy',
    "deploy the version 3 forwarder factory of the mode's route table (its home chain, and each source chain of PAYLINK_CHAINS or PAYLINK_TEST_CHAINS) with the relayer key, checked against the table, and pull renewal's SubscriptionCharger on the home chain unless the configured one is there, and print their addresses",
    deployFactoryV3OnChains,
  );
  factoryCommand(
    'check',
    "report, chain by chain, whether the mode's version 3 factory is deployed as its route table says, and which factory the configuration names for new payments",
    checkFactoryV3OnChains,
  );
}

function registerSandboxPay(program: Command, config: () => Config): void {
  program
    .command('sandbox')
    .description('sandbox helpers')
    .command('pay <payment_id>')
    .description(
      "send USDC to a payment's deposit address from the sandbox customer; given a refund id, fund the refund (the same account stands in for the merchant's wallet)",
    )
    .option(
      '--amount <usdc>',
      'USDC to send (default: what is still due, once the transfers seen are counted)',
    )
    .option('--chain <name>', 'sandbox (the first chain) or sandbox-2 (the second)', 'sandbox')
    .action(async (paymentId: string, options: { amount?: string; chain: string }) => {
      const cfg = config();
      if (cfg.network !== 'sandbox')
        throw new ConfigError('sandbox pay only works with PAYLINK_NETWORK=sandbox');
      const database = openConfiguredDatabase(cfg);
      try {
        await migrateToLatest(database.db);
        const stores = createStores(database);
        const id = paymentId.toLowerCase();
        // A refund's deposit is a row of kind `refund`, which the payment reads leave out.
        const payment = isPaymentId(id)
          ? ((await stores.payments.findById(id)) ?? (await stores.refunds.find(id))?.deposit)
          : undefined;
        if (!payment?.deposit)
          throw new PaylinkError('NOT_FOUND', 'Payment not found (nor a refund with an address)');
        let amount: bigint | undefined;
        if (options.amount === undefined) {
          // What is still due: the price less every transfer the watcher has seen (final or not), so a second
          // `sandbox pay` after a partial one completes the payment instead of paying it again.
          const seen = (await stores.ledger.listTransfers(payment.id))
            .filter((transfer) => !transfer.orphaned)
            .reduce((sum, transfer) => sum + transfer.amountBaseUnits, 0n);
          amount = payment.quote.usdcBaseUnits - seen;
          if (amount <= 0n)
            throw new PaylinkError(
              'CONFLICT',
              `Nothing is due: ${formatUsdc(seen)} USDC has arrived already (pay more with --amount)`,
            );
        } else {
          amount = parseUsdc(options.amount);
          if (amount === undefined || amount <= 0n)
            throw new ValidationError('amount', 'must be a positive USDC amount');
        }
        const { token, rpcUrl, chainId } = sandboxPayChain(
          cfg,
          options.chain,
          payment.deposit.factoryAddress,
        );
        const chain = sandboxChain(rpcUrl, chainId);
        const wallet = createWalletClient({
          account: sandboxAccount(SANDBOX_ACCOUNTS.customer),
          chain,
          transport: http(rpcUrl),
        });
        const hash = await wallet.writeContract({
          address: getAddress(token),
          abi: testUsdcAbi,
          functionName: 'transfer',
          args: [getAddress(payment.deposit.depositAddress), amount],
        });
        out(`Sent ${formatUsdc(amount)} USDC to ${payment.deposit.depositAddress}: ${hash}`);
      } finally {
        await database.close();
      }
    });
}

function modeOption(mode: string): ChainMode {
  if (mode !== 'live' && mode !== 'test') throw new ValidationError('mode', 'must be live or test');
  return mode;
}

/** One line per chain, then the variable to set; a chain with a problem makes the command fail. */
function printFactoryV3(report: FactoryV3Report, options: { json?: boolean }): void {
  const failed = report.chains.filter((chain) => chain.problems.length > 0);
  if (options.json) out(JSON.stringify(report));
  else {
    for (const chain of report.chains) {
      out(
        chain.problems.length === 0
          ? `${chain.network} (${chain.chainId}): ForwarderFactoryV3 ${chain.factory}, routesHash and route as the table says`
          : `${chain.network} (${chain.chainId}): ${chain.problems.join('; ')}`,
      );
    }
    const variable = `${report.mode === 'live' ? 'PAYLINK_' : 'PAYLINK_TEST_'}FACTORY_ADDRESS`;
    const { configured } = report;
    if (configured)
      out(
        configured.version === undefined
          ? `${variable} is ${configured.address}, where no factory is deployed`
          : `${variable} is ${configured.address}, a version ${configured.version} factory: new payments use it (payments made with it keep it after the change)`,
      );
    if (failed.length === 0) out(`Set ${variable}=${report.factory}`);
    const charger = report.subscriptionCharger;
    if (charger)
      out(
        `${charger.deployed ? 'SubscriptionCharger deployed' : 'SubscriptionCharger already there'}: set ${
          report.mode === 'live' ? 'PAYLINK_' : 'PAYLINK_TEST_'
        }SUBSCRIPTION_CHARGER=${charger.address} for pull renewal`,
      );
  }
  if (failed.length > 0)
    throw new PaylinkError(
      'CONFLICT',
      `the ${report.mode} mode's factory is not as its table says on ${failed.map((chain) => chain.network).join(', ')}`,
    );
}

/**
 * Where `sandbox pay` sends from: the first chain, or with `--chain sandbox-2` the second, where only a payment
 * made with the version 3 factory has its address (one made before the second chain has it on the first only).
 */
function sandboxPayChain(
  cfg: Config,
  name: string,
  factoryAddress: string,
): { token: Address; rpcUrl: string; chainId: number | undefined } {
  const stateDir = stateDirOf(cfg);
  if (name === 'sandbox') {
    const token = cfg.liveHomeChain.usdcAddress ?? readSandboxContracts(stateDir)?.usdc;
    if (!token || !isAddress(token))
      throw new ConfigError('the sandbox chain is not running: start it with npm start');
    return {
      token: getAddress(token),
      rpcUrl: cfg.liveHomeChain.rpcUrls[0] ?? SANDBOX_RPC_URL,
      chainId: undefined,
    };
  }
  const second = cfg.chains.find((chain) => chain.network === name && chain.role === 'source');
  if (name !== 'sandbox-2' || !second)
    throw new ValidationError('chain', 'must be sandbox or sandbox-2 (when PAYLINK_CHAINS lists it)');
  const crossChain = readSandboxCrossChain(stateDir);
  if (!crossChain) throw new ConfigError('the sandbox second chain is not running: start it with npm start');
  if (crossChain.factory.toLowerCase() !== factoryAddress.toLowerCase())
    throw new PaylinkError(
      'CONFLICT',
      "This payment was made before the sandbox's second chain: its address exists on the first chain only",
    );
  return { token: crossChain.second.usdc, rpcUrl: second.rpcUrls[0]!, chainId: second.chainId };
}
