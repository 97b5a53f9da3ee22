import { privateKeyToAccount } from 'viem/accounts';
import { createRpcClient } from '../adapters/chain/chainReader.ts';
import { authorizationChain } from '../adapters/chain/eip3009.ts';
import type { DepositPlanners } from '../app/payments/ports.ts';
import type { Clock } from '../app/shared/ports.ts';
import type { X402SettleDeps } from '../app/x402/settlePayment.ts';
import type { X402Chain, X402Mode } from '../app/x402/verifyPayment.ts';
import type { ChainMode, Config } from '../config/index.ts';
import { type HomeChain, homeChainOfMode, type SourceChain } from './chains/model.ts';
import type { createStores } from './wiring.ts';

/**
 * How long /settle waits for the gasless relayer to mine a call's transfer: a few of its passes and blocks on any
 * chain Paylink runs, and well inside x402's HTTP facilitator client's own timeout.
 */
const SETTLE_TIMEOUT_MS = 25_000;
const SETTLE_POLL_MS = 500;

/**
 * The x402 facilitator (decision 0059) on each chain of a mode whose gasless relayer has a key: its home chain and
 * its source chains (CCTP, decision 0032), where the merchant's x402 address is the same address (a version 3
 * forwarder) and what it receives is bridged home. The relayer submits the calls, so where there is none nothing
 * can be settled on that chain (and a mode without any answers no kind).
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
  const modeOf = (mode: ChainMode): X402Mode | undefined => {
    const home = homeChainOfMode(made.chains, mode);
    const planner = made.deposits[mode];
    if (!home || !planner) return undefined;
    // Source chains pay the home chain's version 3 deposit addresses only.
    const sources = home.target.forwarderVersion === 3 ? home.sources : [];
    const chains = [home, ...sources].flatMap((chain) => (chain.gaslessRelayerKey ? [x402Chain(chain)] : []));
    return chains.length === 0 ? undefined : { planner, chains };
  };
  const modes = { live: modeOf('live'), test: modeOf('test') };
  if (!modes.live && !modes.test) return undefined;
  return {
    x402: made.stores.x402Payments,
    modes,
    clock: made.clock,
    payoutPolicy: config.payoutPolicy,
    settleTimeoutMs: SETTLE_TIMEOUT_MS,
    pollIntervalMs: SETTLE_POLL_MS,
  };
}

function x402Chain(chain: HomeChain | SourceChain): X402Chain {
  const relayerAddress = privateKeyToAccount(chain.gaslessRelayerKey!).address;
  const client = createRpcClient(chain.rpcUrls, 2_000);
  return {
    ...authorizationChain(client, chain.target.chainId, relayerAddress),
    tokenAddress: chain.target.tokenAddress,
    relayerAddress,
  };
}
