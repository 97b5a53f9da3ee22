import type { Logger } from 'pino';
import { chainReader, createRpcClient } from '../adapters/chain/chainReader.ts';
import { authorizationChain } from '../adapters/chain/eip3009.ts';
import { createRelayer } from '../adapters/chain/relayer.ts';
import { chargerLogReader } from '../adapters/chain/subscriptionCharger.ts';
import { customerEmails } from '../adapters/email/customerEmails.ts';
import type { Ledger } from '../app/chain/ports.ts';
import { runChainWatcher } from '../app/chain/runChainWatcher.ts';
import type { EmailStore } from '../app/email/ports.ts';
import type { GaslessAuthorization, GaslessStore } from '../app/gasless/ports.ts';
import { runGaslessRelayer } from '../app/gasless/runGaslessRelayer.ts';
import { runWhileHoldingLock } from '../app/operations/lockedJob.ts';
import type { JobLocks } from '../app/operations/ports.ts';
import { runExpirer } from '../app/operations/runExpirer.ts';
import { createWakeup, type Wakeup } from '../app/operations/wakeup.ts';
import type { PaymentStore } from '../app/payments/ports.ts';
import type { RefundStore } from '../app/refunds/ports.ts';
import type { SettlementStore } from '../app/settlement/ports.ts';
import { runSettler } from '../app/settlement/settleOnce.ts';
import { runSettlerWithMints } from '../app/settlement/settleWithMints.ts';
import type { Clock } from '../app/shared/ports.ts';
import { type ChainCancelStore, runChainCancels } from '../app/subscriptions/chainCancels.ts';
import type { RelayChargesDeps } from '../app/subscriptions/relayCharges.ts';
import type { RenewalDeps } from '../app/subscriptions/renewal.ts';
import { runRenewalJob } from '../app/subscriptions/runRenewals.ts';
import { runWebhookDispatcher } from '../app/webhooks/dispatchWebhooks.ts';
import type { WebhookStore } from '../app/webhooks/ports.ts';
import type { X402Store } from '../app/x402/ports.ts';
import { recordMinedCall } from '../app/x402/settlePayment.ts';
import { type Config, NETWORKS } from '../config/index.ts';
import { homeMintDeps, sourceBridgeJob } from './chains/bridgeJobs.ts';
import { type WorkerBridge, type WorkerChain, watchOptionsOf } from './chains/workerChains.ts';
import { runEmailJob } from './emailDispatcher.ts';
import { createWebhookDispatcherDeps } from './wiring.ts';

export interface WorkerDeps {
  /** Which process runs each singleton job (one per chain cursor, one per relayer). */
  readonly locks: JobLocks;
  /** Its transactions react to a payment paid with the customer's receipt (paymentPaidReactions.ts). */
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: Config;
  /**
   * The chains to watch and settle, one per chain id (a test chain that is the live chain itself is one entry):
   * each gets its own watcher, settler and gasless relayer, their locks named by its chain id.
   */
  readonly chains: readonly WorkerChain[];
  readonly settlements: SettlementStore;
  readonly webhooks: WebhookStore;
  readonly payments: Pick<PaymentStore, 'findById'>;
  readonly gaslessAuthorizations: GaslessStore;
  /** The x402 facilitator's calls, marked paid when the gasless relayer mines them (decision 0059). */
  readonly x402Payments: X402Store;
  readonly refunds: RefundStore;
  readonly emails: EmailStore;
  /** Settlement across chains (decision 0029): source chains burnt to the home chain, minted by its settler. */
  readonly bridge?: WorkerBridge | undefined;
  /** Push renewal of subscriptions (decision 0060): what billing a period takes; absent: no renewal job. */
  readonly renewal?: RenewalDeps | undefined;
  /**
   * Pull renewal's charges on a chain (decision 0061), submitted by its gasless relayer (one writer of that key's
   * nonces); undefined where no mode is charged there.
   */
  readonly charges?:
    | ((
        chainId: number,
        client: ReturnType<typeof createRpcClient>,
        relayer: ReturnType<typeof createRelayer>,
      ) => RelayChargesDeps | undefined)
    | undefined;
  /**
   * Where the charger's `Canceled` logs are read on a chain (a customer's cancel from any wallet, decision 0061);
   * undefined where no mode is charged there.
   */
  readonly mandateCancels?:
    | ((chainId: number) => { readonly store: ChainCancelStore; readonly charger: string } | undefined)
    | undefined;
}

/** Subscriptions due for a look are picked up within this: their moments are days apart, not seconds. */
const RENEWAL_POLL_MS = 10_000;

/** Outbox poll: an event written by a status change is picked up within this (one indexed query per poll). */
const WEBHOOK_POLL_MS = 250;

/** The background jobs of the `worker` role, until `signal` aborts. Resolves when they have all stopped. */
export async function runWorker(deps: WorkerDeps, signal: AbortSignal): Promise<void> {
  const { config, logger } = deps;
  const every = { intervalMs: config.liveHomeChain.pollIntervalMs, signal, logger };
  const explorers = new Map(
    deps.chains.map((chain) => [chain.target.chainId, NETWORKS[chain.settings.network].explorerUrl]),
  );
  const emails = customerEmails(config, (chainId) => explorers.get(chainId));
  // Each home chain's settler is woken by its source chains' bridge jobs when a mint is due (decision 0037).
  const mintsDue = new Map(deps.chains.map((chain) => [chain.target.chainId, createWakeup()]));
  const jobs = deps.chains.flatMap((chain) =>
    chainJobs(deps, chain, signal, mintsDue.get(chain.target.chainId)),
  );
  const { bridge } = deps;
  if (bridge) {
    const wired = {
      ...bridge,
      bridge: bridge.store,
      locks: deps.locks,
      settlements: deps.settlements,
      clock: deps.clock,
      logger,
    };
    jobs.push(
      ...bridge.sources.map((source) =>
        sourceBridgeJob(wired, source, signal, mintsDue.get(source.homeChainId)),
      ),
    );
  }
  // Expiry and refund announcements are safe to run twice (row locks, marks), but one runner avoids wasted sweeps.
  const expirer = runWhileHoldingLock(deps.locks, 'expirer', every, (held) =>
    runExpirer(
      {
        ledger: deps.ledger,
        refunds: deps.refunds,
        clock: deps.clock,
        logger,
        payoutPolicy: config.payoutPolicy,
        refundNotices: emails?.refundNotices,
      },
      { intervalMs: every.intervalMs, signal: held },
    ),
  );
  // Webhook delivery runs in every worker: claims are leased rows (SKIP LOCKED), not a singleton.
  const webhookDeps = createWebhookDispatcherDeps(config, {
    webhooks: deps.webhooks,
    clock: deps.clock,
    logger,
  });
  const dispatcher = runWebhookDispatcher(webhookDeps, { intervalMs: WEBHOOK_POLL_MS, signal }).finally(() =>
    webhookDeps.sender.close(),
  );
  // E-mail (decision 0021), when configured: in every worker too, for the same reason.
  const mailer = config.mail ? runEmailJob(config.mail, deps, signal) : Promise.resolve();
  // Subscriptions' renewal in every worker too: each subscription is leased before it is looked at.
  const renewals = deps.renewal
    ? runRenewalJob(deps.renewal, { intervalMs: RENEWAL_POLL_MS, signal, logger })
    : Promise.resolve();
  await Promise.all([...jobs, expirer, dispatcher, mailer, renewals]);
}

/** What one chain's jobs share: the worker's deps, the chain, its logger (naming it), RPC client, reader, loop. */
interface ChainJobKit {
  readonly deps: WorkerDeps;
  readonly chain: WorkerChain;
  readonly logger: WorkerDeps['logger'];
  readonly client: ReturnType<typeof createRpcClient>;
  readonly reader: ReturnType<typeof chainReader>;
  readonly every: {
    readonly intervalMs: number;
    readonly signal: AbortSignal;
    readonly logger: WorkerDeps['logger'];
  };
}

/** The chain watcher, the settler and the gasless relayer of one chain, each a singleton named by the chain id. */
function chainJobs(
  deps: WorkerDeps,
  chain: WorkerChain,
  signal: AbortSignal,
  mintsDue: Wakeup | undefined,
): Promise<void>[] {
  const { settings } = chain;
  // The one place a chain job's lines get their chainId: the jobs never add it again (a key twice on one line is
  // ambiguous JSON; test/operations/workerLogs.test.ts). Their use cases assume a logger that names the chain.
  const logger = deps.logger.child({ chainId: chain.target.chainId });
  const client = createRpcClient(chain.rpcUrls);
  const kit: ChainJobKit = {
    deps,
    chain,
    logger,
    client,
    reader: chainReader(client, settings.finality),
    every: { intervalMs: settings.pollIntervalMs, signal, logger },
  };
  const jobs = [watcherJob(kit)];
  const settler = settlerJob(kit, mintsDue);
  if (settler) jobs.push(settler);
  else if (chain.homeChainId === undefined) {
    // A source chain has no flushing settler by design: the bridge's job burns its deposits (decision 0029).
    logger.warn(
      `${settings.variablePrefix}RELAYER_KEY is not set: deposit addresses will not be flushed to merchants by this service`,
    );
  }
  const gasless = gaslessRelayerJob(kit);
  if (gasless) jobs.push(gasless);
  return jobs;
}

/**
 * The chain's watcher, a singleton named by the chain id: it owns the chain's cursor, and where a mode is charged
 * by pull on this chain, the charger's (mandates canceled on chain, decision 0061).
 */
function watcherJob(kit: ChainJobKit): Promise<void> {
  const { deps, chain, logger, every } = kit;
  const chainId = chain.target.chainId;
  const watching = {
    ledger: deps.ledger,
    chain: kit.reader,
    clock: deps.clock,
    logger,
    payoutPolicy: deps.config.payoutPolicy,
  };
  // The charger's `Canceled` logs are the chain's too: read under the watcher's lock, its cursor beside the chain's.
  const cancels = deps.mandateCancels?.(chainId);
  const reading = cancels && {
    chain: chargerLogReader(kit.client, chain.settings.finality),
    store: cancels.store,
    clock: deps.clock,
    logger,
  };
  return runWhileHoldingLock(deps.locks, `chain-watcher:${chainId}`, every, async (held) => {
    const options = { intervalMs: every.intervalMs, signal: held };
    await Promise.all([
      runChainWatcher(watching, { ...watchOptionsOf(chain), ...options }),
      reading &&
        runChainCancels(reading, {
          chainId,
          charger: cancels.charger,
          maxBlockRange: chain.settings.maxBlockRange,
          ...options,
        }),
    ]);
  });
}

/** The chain's settler, where it has a relayer key: flushes forwarders, and on the home chain mints too. */
function settlerJob(kit: ChainJobKit, mintsDue: Wakeup | undefined): Promise<void> | undefined {
  const { deps, chain, logger, every } = kit;
  const { settings, relayerKey, cctp } = chain;
  if (!relayerKey) return undefined;
  const chainId = chain.target.chainId;
  const relayer = createRelayer({ client: kit.client, chainId, relayerKey });
  const settle = { settlements: deps.settlements, relayer, chain: kit.reader, clock: deps.clock, logger };
  const options = {
    chainId,
    payoutPolicy: { ...deps.config.payoutPolicy, dustThresholdBaseUnits: settings.dustThresholdBaseUnits },
    relayerLowBalanceWei: settings.relayerLowBalanceWei,
    intervalMs: settings.pollIntervalMs,
  };
  const mint =
    cctp && deps.bridge
      ? homeMintDeps(
          { bridge: deps.bridge.store, clock: deps.clock },
          { chainId, rpcUrls: chain.rpcUrls, finality: settings.finality, ...cctp },
          relayer,
          logger,
        )
      : undefined;
  // One settler per relayer: its nonce sequence must have a single writer (the home chain's mints included).
  return runWhileHoldingLock(deps.locks, `relayer:${chainId}`, every, (held) =>
    mint
      ? runSettlerWithMints(settle, mint, { ...options, signal: held, wakeup: mintsDue })
      : runSettler(settle, { ...options, signal: held }),
  );
}

/** The chain's gasless relayer, where it has a key: submits customers' signed transfers (EIP-3009). */
function gaslessRelayerJob(kit: ChainJobKit): Promise<void> | undefined {
  const { deps, chain, logger, every } = kit;
  const { gaslessRelayerKey, settings } = chain;
  if (!gaslessRelayerKey) return undefined;
  const chainId = chain.target.chainId;
  const relayer = createRelayer({ client: kit.client, chainId, relayerKey: gaslessRelayerKey });
  const relaying = {
    gasless: deps.gaslessAuthorizations,
    relayer,
    chain: authorizationChain(kit.client, chainId, relayer.address),
    payments: deps.payments,
    ledger: deps.ledger,
    clock: deps.clock,
    logger,
    // An x402 call's payment is paid once its transfer is mined (decision 0059).
    onMined: (mined: GaslessAuthorization) =>
      recordMinedCall(
        { x402: deps.x402Payments, clock: deps.clock, payoutPolicy: deps.config.payoutPolicy },
        mined,
      ),
  };
  // Its own key, its own singleton: one writer of that key's nonces, the subscriptions' charges included.
  const charges = deps.charges?.(chainId, kit.client, relayer);
  return runWhileHoldingLock(deps.locks, `gasless-relayer:${chainId}`, every, (held) =>
    runGaslessRelayer(
      { ...relaying, charges },
      {
        maxFeeWeiPerHour: settings.gasless.maxFeeWeiPerHour,
        intervalMs: every.intervalMs,
        signal: held,
      },
    ),
  );
}
