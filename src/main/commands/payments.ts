import type { Command } from 'commander';
import { erc20Abi, getAddress } from 'viem';
import { createRpcClient } from '../../adapters/chain/chainReader.ts';
import { migrateToLatest } from '../../adapters/db/database.ts';
import { sweepToken } from '../../app/settlement/sweepToken.ts';
import { type Config, ConfigError } from '../../config.ts';
import { createStores, openConfiguredDatabase } from '../wiring.ts';

function out(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** `paylink payments …`: operations on one payment. */
export function registerPaymentCommands(program: Command, config: () => Config): void {
  program
    .command('payments')
    .description('operations on one payment')
    .command('sweep <payment_id>')
    .description(
      "forward a token that does not pay (sent by mistake) out of the payment's deposit address to the merchant",
    )
    .requiredOption('--token <address>', 'the token contract')
    .action(async (paymentId: string, options: { token: string }) => {
      const cfg = config();
      const database = openConfiguredDatabase(cfg);
      try {
        await migrateToLatest(database.db);
        const stores = createStores(database);
        const swept = await sweepToken(
          {
            payments: stores.payments,
            settlements: stores.settlements,
            tokenBalance: async (token, holder) => {
              const payment = await stores.payments.findById(paymentId.trim().toLowerCase());
              const chain = [cfg.chain, cfg.testChain].find((c) => c?.chainId === payment?.deposit?.chainId);
              if (!chain || chain.rpcUrls.length === 0)
                throw new ConfigError(`no RPC configured for chain ${payment?.deposit?.chainId}`);
              return createRpcClient(chain.rpcUrls).readContract({
                address: getAddress(token),
                abi: erc20Abi,
                functionName: 'balanceOf',
                args: [getAddress(holder)],
              });
            },
          },
          paymentId,
          options.token,
        );
        out(
          `The settler will forward ${swept.toString()} base units of ${getAddress(options.token)} on its next pass (the merchant's share to its wallet, the commission to the treasury).`,
        );
      } finally {
        await database.close();
      }
    });
}
