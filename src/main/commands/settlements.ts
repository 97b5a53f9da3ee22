import type { Command } from 'commander';
import { migrateToLatest } from '../../adapters/db/database.ts';
import { retrySettlement } from '../../app/retrySettlement.ts';
import { MAX_SETTLEMENT_FAILURES } from '../../app/settlePayments.ts';
import type { Config } from '../../config.ts';
import { createStores, openConfiguredDatabase } from '../wiring.ts';

/** `paylink settlements retry <payment_id>`: the operator's way back after a payment's flush kept failing. */
export function registerSettlementCommands(program: Command, config: () => Config): void {
  program
    .command('settlements')
    .description('settlement of deposit addresses to merchants')
    .command('retry <payment_id>')
    .description(
      `try again to flush a payment whose settlement failed (after ${MAX_SETTLEMENT_FAILURES} failures it is left alone)`,
    )
    .action(async (paymentId: string) => {
      const database = openConfiguredDatabase(config());
      try {
        await migrateToLatest(database.db);
        const previous = await retrySettlement(createStores(database), paymentId);
        process.stdout.write(
          `Payment ${paymentId} will be settled again by the next settler pass (it had ${previous} failed attempt${previous === 1 ? '' : 's'}).\n`,
        );
      } finally {
        await database.close();
      }
    });
}
