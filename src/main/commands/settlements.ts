import type { Command } from 'commander';
import { type CrossChainView, listCrossChain } from '../../app/bridge/listCrossChain.ts';
import { listPayouts, type PayoutView } from '../../app/settlement/listPayouts.ts';
import { listRelayers, type RelayerChain, type RelayerView } from '../../app/settlement/listRelayers.ts';
import { retrySettlement } from '../../app/settlement/retrySettlement.ts';
import { systemClock } from '../../app/shared/ports.ts';
import { NETWORKS } from '../../config/chains/networks.ts';
import type { Config } from '../../config/index.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { out } from '../terminal.ts';
import { withStores } from '../wiring.ts';
import { limitFlag } from './logListing.ts';

const COLUMNS: readonly [string, number, (view: PayoutView) => string][] = [
  ['PAYMENT', 36, (v) => v.payment_id],
  ['PAYOUT', 7, (v) => v.payout_status ?? '-'],
  ['UNSETTLED', 12, (v) => v.unsettled],
  ['TRIES', 5, (v) => String(v.failures)],
  ['NEXT ATTEMPT', 24, (v) => v.next_attempt_at ?? 'next pass'],
  ['WHY', 0, (v) => why(v)],
];

const CROSS_CHAIN_COLUMNS: readonly [string, number, (view: CrossChainView) => string][] = [
  ['PAYMENT', 36, (v) => v.payment_id],
  ['FROM', 8, (v) => String(v.source_chain_id)],
  ['STEP', 6, (v) => v.step],
  ['AMOUNT', 12, (v) => v.amount],
  ['SPEED', 8, (v) => v.speed],
  ['TRIES', 5, (v) => String(v.attempts)],
  ['NEXT ATTEMPT', 24, (v) => v.next_attempt_at ?? 'next pass'],
  [
    'WHY',
    0,
    (v) => (v.last_error ? `${v.stalled_since ? `since ${v.stalled_since}: ` : ''}${v.last_error}` : '-'),
  ],
];

const RELAYER_COLUMNS: readonly [string, number, (view: RelayerView) => string][] = [
  ['CHAIN', 9, (v) => String(v.chain_id)],
  ['NAME', 22, (v) => v.chain_name ?? '(not configured)'],
  ['ROLE', 6, (v) => v.role ?? '-'],
  ['RELAYER', 42, (v) => v.address ?? '-'],
  [
    'BALANCE',
    28,
    (v) => (v.balance === null ? 'never read' : `${v.balance} ${v.native_symbol ?? ''}`.trimEnd()),
  ],
  ['THRESHOLD', 14, (v) => `${v.low_balance} ${v.native_symbol ?? ''}`.trimEnd()],
  ['', 3, (v) => (v.low ? 'LOW' : '')],
  ['READ AT', 0, (v) => v.observed_at ?? '-'],
];

/**
 * Ends `settlements relayers` with exit code 1 once its listing is printed: the caller (cli.ts) returns an
 * error's numeric `exitCode` without printing anything more.
 */
class RelayerLowExit extends Error {
  readonly exitCode = 1;
  constructor() {
    super('a relayer is low on gas');
  }
}

/** The configured chains as the relayer listing names them, per mode its home chain then its source chains. */
function relayerChains(config: Config): RelayerChain[] {
  return config.chains.map((chain) => ({
    chainId: chain.chainId,
    name: NETWORKS[chain.network].name,
    role: chain.role,
    nativeSymbol: NETWORKS[chain.network].nativeCurrencySymbol,
    lowBalanceWei: chain.relayerLowBalanceWei,
  }));
}

/** Rows under a header, each column padded to its width (the last one free). */
function table<T>(columns: readonly [string, number, (view: T) => string][], views: readonly T[]): void {
  out(
    columns
      .map(([title, width]) => title.padEnd(width))
      .join('  ')
      .trimEnd(),
  );
  for (const view of views)
    out(
      columns
        .map(([, width, cell]) => cell(view).padEnd(width))
        .join('  ')
        .trimEnd(),
    );
}

function why(view: PayoutView): string {
  const parts = [];
  if (view.payout_blocked_reason)
    parts.push(`merchant share since ${view.payout_blocked_since}: ${view.payout_blocked_reason}`);
  if (view.commission_blocked_reason)
    parts.push(`commission since ${view.commission_blocked_since}: ${view.commission_blocked_reason}`);
  return parts.join('; ') || 'waiting for the next flush';
}

/** `paylink settlements …`: payouts still owed, why they wait, and trying them again now. */
export function registerSettlementCommands(program: Command, config: () => Config): void {
  const settlements = program
    .command('settlements')
    .description('payouts from deposit addresses to merchants and the treasury');

  settlements
    .command('list')
    .description('payouts not fully sent yet, oldest first, with why they wait')
    .option('--delayed', 'only payouts whose transfers are failing')
    .option('--limit <n>', 'at most this many (1–500)', '100')
    .option('--json', 'print JSON')
    .action(async (options: { delayed?: boolean; limit: string; json?: boolean }) => {
      const cfg = config();
      const limit = limitFlag(options.limit);
      if (!(limit >= 1 && limit <= 500)) throw new PaylinkError('VALIDATION_ERROR', '--limit must be 1–500');
      const views = await withStores(cfg, (stores) =>
        listPayouts({ settlements: stores.settlements, clock: systemClock }, cfg.payoutPolicy, {
          failingOnly: options.delayed === true,
          limit,
        }),
      );
      if (options.json) return out(JSON.stringify({ payouts: views }));
      if (views.length === 0)
        return out(options.delayed ? 'No payout is failing.' : 'Every payout has gone out.');
      table(COLUMNS, views);
    });

  settlements
    .command('cross-chain')
    .description('money on its way to the home chain through CCTP: the step each transfer waits in, and why')
    .option('--limit <n>', 'at most this many (1–500)', '100')
    .option('--json', 'print JSON')
    .action(async (options: { limit: string; json?: boolean }) => {
      const limit = limitFlag(options.limit);
      if (!(limit >= 1 && limit <= 500)) throw new PaylinkError('VALIDATION_ERROR', '--limit must be 1–500');
      const views = await withStores(config(), (stores) =>
        listCrossChain({ bridge: stores.bridgeTransfers }, limit),
      );
      if (options.json) return out(JSON.stringify({ transfers: views }));
      if (views.length === 0) return out('No money is on its way between chains.');
      table(CROSS_CHAIN_COLUMNS, views);
    });

  settlements
    .command('relayers')
    .description(
      "each chain's relayer and its gas balance as last read, LOW below its threshold (exit code 1 when any is)",
    )
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const cfg = config();
      const views = await withStores(cfg, (stores) =>
        listRelayers({ settlements: stores.settlements }, relayerChains(cfg)),
      );
      if (options.json) out(JSON.stringify({ relayers: views }));
      else table(RELAYER_COLUMNS, views);
      // A script or a cron check can act on the exit code alone; the listing is printed either way.
      if (views.some((v) => v.low)) throw new RelayerLowExit();
    });

  settlements
    .command('retry [payment_id]')
    .description('flush a failing payout on the next settler pass instead of after its back-off')
    .option('--all', 'every payout waiting for a retry')
    .action(async (paymentId: string | undefined, options: { all?: boolean }) => {
      if ((paymentId === undefined) === (options.all !== true))
        throw new PaylinkError('VALIDATION_ERROR', 'give either a payment id or --all');
      const count = await withStores(config(), (stores) =>
        retrySettlement(stores, options.all ? { all: true } : { paymentId: paymentId! }),
      );
      out(
        options.all
          ? `${count} payout${count === 1 ? '' : 's'} will be tried again on the next settler pass.`
          : `Payment ${paymentId} will be tried again on the next settler pass.`,
      );
    });
}
