import type { Command } from 'commander';
import { refundResponse } from '../../adapters/web/refundPresenter.ts';
import { getRefundAsAdmin, listRefundsAsAdmin } from '../../app/refunds/listRefunds.ts';
import type { RefundRecord } from '../../app/refunds/ports.ts';
import { systemClock } from '../../app/shared/ports.ts';
import type { Config } from '../../config/index.ts';
import { ValidationError } from '../../domain/errors.ts';
import { out } from '../terminal.ts';
import { withStores } from '../wiring.ts';

type RefundView = ReturnType<typeof refundResponse> & { readonly merchant_id: string };

function view(record: RefundRecord, checkoutUrl: string): RefundView {
  return {
    merchant_id: record.refund.merchantId,
    ...refundResponse(record, systemClock.now(), checkoutUrl),
  };
}

/** One line per refund: what it is, where it stands, and what it waits for. */
function line(v: RefundView): string {
  const next =
    v.status === 'awaiting_address'
      ? `claim ${v.claim_url}`
      : v.status === 'awaiting_funds'
        ? `fund ${v.amount} USDC to ${v.deposit_address}`
        : v.txid
          ? `tx ${v.txid}`
          : (v.payout_delayed_reason ?? '');
  return `${v.refund_id}  ${v.status.padEnd(16)}  ${v.amount.padStart(12)} USDC  payment ${v.payment_id}  ${next}`.trimEnd();
}

/** `paylink refunds …`: refunds by merchant or by payment, and one refund in full (administrators). */
export function registerRefundCommands(program: Command, config: () => Config): void {
  const refunds = program.command('refunds').description('refunds of payments, by merchant or by payment');

  refunds
    .command('list')
    .description("a merchant's refunds (one mode) or a payment's, newest first")
    .option('--merchant <public_id>', 'the merchant')
    .option('--payment <payment_id>', 'the payment')
    .option('--mode <mode>', 'live or test (with --merchant)', 'live')
    .option('--limit <n>', 'at most this many (1 to 100)', '20')
    .option('--json', 'print JSON')
    .action(
      async (options: {
        merchant?: string;
        payment?: string;
        mode: string;
        limit: string;
        json?: boolean;
      }) => {
        if (options.mode !== 'live' && options.mode !== 'test')
          throw new ValidationError('--mode', 'must be live or test');
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100)
          throw new ValidationError('--limit', 'must be an integer from 1 to 100');
        const cfg = config();
        const { records } = await withStores(cfg, (stores) =>
          listRefundsAsAdmin(stores, {
            merchantId: options.merchant,
            paymentId: options.payment,
            mode: options.mode as 'live' | 'test',
            limit,
          }),
        );
        const views = records.map((r) => view(r, cfg.checkoutUrl));
        if (options.json) return out(JSON.stringify({ refunds: views }));
        if (views.length === 0) return out('No refunds.');
        for (const v of views) out(line(v));
      },
    );

  refunds
    .command('show <refund_id>')
    .description('one refund in full, as JSON')
    .action(async (refundId: string) => {
      const cfg = config();
      const record = await withStores(cfg, (stores) => getRefundAsAdmin(stores, refundId));
      out(JSON.stringify(view(record, cfg.checkoutUrl), null, 2));
    });
}
