import { runApiBench } from './api.ts';
import { runCheckoutBench } from './checkout.ts';
import { runCrossChainGasBench } from './crossChainGas.ts';
import { runDashboardBench } from './dashboard.ts';
import { runFastPaidBench } from './fastPaid.ts';
import { runFinalityLatencyBench } from './finalityLatency.ts';
import { runMatchingBench } from './matching.ts';
import { runPullChargeGasBench } from './pullChargeGas.ts';
import { runSettlementGasBench } from './settlementGas.ts';
import { runWebhookBench } from './webhooks.ts';

/**
 * `npm run bench`: every benchmark in turn, each printing its figures next to a baseline measured in the same
 * run. Benchmarks never fail the build; they report. Run them on a quiet machine.
 */
const benches: [string, () => Promise<string[]>][] = [
  ['matching', runMatchingBench],
  ['finality latency', runFinalityLatencyBench],
  ['settlement gas', runSettlementGasBench],
  ['cross-chain gas', runCrossChainGasBench],
  ['pull charge gas', runPullChargeGasBench],
  ['fast deposit to paid', runFastPaidBench],
  ['webhooks', runWebhookBench],
  ['checkout page', runCheckoutBench],
  ['dashboard', runDashboardBench],
  ['api', runApiBench],
];

const only = process.argv.slice(2);
for (const [name, run] of benches) {
  if (only.length > 0 && !only.some((o) => name.includes(o))) continue;
  process.stdout.write(`\n== ${name}\n`);
  try {
    for (const line of await run()) process.stdout.write(`${line}\n`);
  } catch (error) {
    process.stdout.write(`  failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
