import type { Command } from 'commander';
import { getAddress } from 'viem';
import { createRpcClient } from '../../adapters/chain/chainReader.ts';
import { tokenBalanceOf } from '../../adapters/chain/tokenBalance.ts';
import { sweepToken } from '../../app/settlement/sweepToken.ts';
import { type Config, ConfigError } from '../../config/index.ts';
import { formatDecimal } from '../../domain/decimal.ts';
import { formatUsdc } from '../../domain/money.ts';
import { out } from '../terminal.ts';
import { withStores } from '../wiring.ts';

/** `paylink payments …`: operations on one payment. */
export function registerPaymentCommands(program: Command, config: () => Config): void {
  const payments = program.command('payments').description('operations on one payment');

  payments
    .command('gasless <payment_id>')
    .description(
      "the customer's signed (gasless) transfers for a payment: what became of each, what its gas cost",
    )
    .option('--json', 'print JSON')
    .action(async (paymentId: string, options: { json?: boolean }) => {
      const rows = await withStores(config(), (stores) =>
        stores.gaslessAuthorizations.listForPayment(paymentId.trim().toLowerCase()),
      );
      const views = rows.map((row) => ({
        id: row.id,
        status: row.status,
        from: getAddress(row.from),
        amount: formatUsdc(row.valueBaseUnits),
        tx_hash: row.txHash,
        gas_used: row.gasUsed?.toString() ?? null,
        fee_pol: row.feeWei === null ? null : formatDecimal({ units: row.feeWei, scale: 18 }),
        reason: row.failureReason,
        created_at: row.createdAt.toISOString(),
      }));
      if (options.json) return out(JSON.stringify({ authorizations: views }));
      if (views.length === 0) return out(`No signed transfer was submitted for payment ${paymentId}.`);
      for (const v of views) {
        const cost = v.fee_pol === null ? '' : `  gas ${v.gas_used}, fee ${v.fee_pol} POL`;
        out(
          `${v.id}  ${v.status.padEnd(7)}  ${v.amount} USDC from ${v.from}${v.tx_hash ? `  tx ${v.tx_hash}` : ''}${cost}`,
        );
        if (v.reason) out(`    ${v.reason}`);
      }
    });

  payments
    .command('sweep <payment_id>')
    .description(
      "forward a token that does not pay (sent by mistake) out of the payment's deposit address to the merchant",
    )
    .requiredOption('--token <address>', 'the token contract')
    .action(async (paymentId: string, options: { token: string }) => {
      const cfg = config();
      const swept = await withStores(cfg, (stores) =>
        sweepToken(
          {
            payments: stores.payments,
            settlements: stores.settlements,
            tokenBalance: async (token, holder) => {
              const payment = await stores.payments.findById(paymentId.trim().toLowerCase());
              const chain = cfg.chains.find((c) => c.chainId === payment?.deposit?.chainId);
              if (!chain || chain.rpcUrls.length === 0)
                throw new ConfigError(`no RPC configured for chain ${payment?.deposit?.chainId}`);
              return tokenBalanceOf(createRpcClient(chain.rpcUrls), token, holder);
            },
          },
          paymentId,
          options.token,
        ),
      );
      out(
        `The settler will forward ${swept.toString()} base units of ${getAddress(options.token)} on its next pass (the merchant's share to its wallet, the commission to the treasury).`,
      );
    });
}
