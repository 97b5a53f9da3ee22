import { privateKeyToAccount } from 'viem/accounts';
import { createRpcClient } from '../adapters/chain/chainReader.ts';
import { authorizationChain } from '../adapters/chain/eip3009.ts';
import type { DepositPlanners } from '../app/payments/ports.ts';
import type { Clock } from '../app/shared/ports.ts';
import type { X402SettleDeps } from '../app/x402/settlePayment.ts';
import type { X402Chain } from '../app/x402/verifyPayment.ts';
import type { ChainMode, Config } from '../config/index.ts';
import { type HomeChain, homeChainOfMode } from './chains/model.ts';
import type { createStores } from './wiring.ts';

/**
 * How long /settle waits for the gasless relayer to mine a call's transfer: a few of its passes and blocks on any
 * chain Paylink runs, and well inside x402's HTTP facilitator client's own timeout.
 */
const SETTLE_TIMEOUT_MS = 25_000;
const SETTLE_POLL_MS = 500;

/**
 * The x402 facilitator (decision 0059) on each mode's home chain whose gasless relayer has a key: that relayer
 * submits the calls, so where there is none nothing can be settled (and the routes say so).
 */
export function x402Facilitator(
  config: Pick<Config, 'payoutPolicy'>,
  made: {
    readonly stores: ReturnType<typeof createStores>;
    readonly chains: readonly HomeChain[];
    readonly deposits: DepositPlanners;
    readonly clock: Clock;
  },
): X402SettleDeps | undefined {
  const chainOf = (mode: ChainMode): X402Chain | undefined => {
    const home = homeChainOfMode(made.chains, mode);
    const planner = made.deposits[mode];
    if (!home?.gaslessRelayerKey || !planner) return undefined;
    const relayerAddress = privateKeyToAccount(home.gaslessRelayerKey).address;
    const client = createRpcClient(home.rpcUrls, 2_000);
    return { ...authorizationChain(client, home.target.chainId, relayerAddress), planner, relayerAddress };
  };
  const chains = { live: chainOf('live'), test: chainOf('test') };
  if (!chains.live && !chains.test) return undefined;
  return {
    x402: made.stores.x402Payments,
    chains,
    clock: made.clock,
    payoutPolicy: config.payoutPolicy,
    settleTimeoutMs: SETTLE_TIMEOUT_MS,
    pollIntervalMs: SETTLE_POLL_MS,
  };
}
