import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ServiceMeasurements } from '../../app/operations/measureService.ts';

/**
 * The Prometheus metrics of one process (docs/decisions/0008-observability-and-listing.md). One registry per
 * `createMetrics()`, no global: tests build as many apps as they like, and `main/` shares one instance
 * between the API and the background jobs of the same process.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly contentType: string;
  /** One HTTP request served: `route` is the route's pattern (never the raw URL: bounded label values). */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
  countRateLimited(policy: string): void;
  /** Gauges read from shared state at scrape time (app/measureService.ts). */
  record(measurements: ServiceMeasurements): void;
}

const WEI_PER_POL = 10n ** 18n;

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  // Process CPU, memory (RSS, heap), event loop lag, GC: the standard process_* and nodejs_* series.
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const httpDuration = new Histogram({
    name: 'paylink_http_request_duration_seconds',
    help: 'HTTP requests served, by route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  // Routes are patterns and status codes few: the label sets are bounded.
  const httpDurationByLabels = new Map<string, { observe(value: number): void }>();
  const rateLimited = new Counter({
    name: 'paylink_rate_limited_total',
    help: 'Requests refused with 429, by policy (key: per API key; ip: unauthenticated, per address)',
    labelNames: ['policy'] as const,
    registers,
  });
  const gauges = serviceGauges(registers);

  return {
    registry,
    contentType: registry.contentType,
    observeRequest(method, route, statusCode, seconds) {
      // One child per label set, made once: prom-client hashes the labels of every plain observe().
      const key = `${method} ${statusCode} ${route}`;
      let child = httpDurationByLabels.get(key);
      if (child === undefined) {
        child = httpDuration.labels({ method, route, status_code: String(statusCode) });
        httpDurationByLabels.set(key, child);
      }
      child.observe(seconds);
    },
    countRateLimited(policy) {
      rateLimited.inc({ policy });
    },
    record(m) {
      recordMeasurements(gauges, m);
    },
  };
}

/** The one label of every per-chain series. */
const CHAIN = ['chain_id'] as const;

/** Makes gauges in `registers`: a gauge is its name, its help and its labels (none for a single series). */
function gaugeOf(registers: Registry[]) {
  return <T extends string>(name: string, help: string, labelNames: readonly T[] = []) =>
    new Gauge<T>({ name, help, labelNames, registers });
}

/** The gauges read from shared state at scrape time, registered in this order (the order /metrics shows). */
function serviceGauges(registers: Registry[]) {
  return { ...stateGauges(registers), ...chainGauges(registers), ...payoutGauges(registers) };
}

type ServiceGauges = ReturnType<typeof serviceGauges>;

/** The database, the payments and the webhook queue. */
function stateGauges(registers: Registry[]) {
  const gauge = gaugeOf(registers);
  const up = gauge(
    'paylink_dependency_up',
    '1 when the dependency answered the last scrape, else 0 (rpc: one per chain_id)',
    ['dependency', 'chain_id'],
  );
  const payments = gauge(
    'paylink_payments',
    'Payments by stored status (the expirer moves pending to expired within one polling interval)',
    ['status'],
  );
  const webhookEvents = gauge(
    'paylink_webhook_events',
    'Webhook events by delivery status (failed: retries exhausted; stopped: the receiver answered 410)',
    ['delivery_status'],
  );
  const webhookQueueDepth = gauge(
    'paylink_webhook_queue_depth',
    'Webhook events still owed a delivery (pending or being delivered)',
  );
  const webhookOldest = gauge(
    'paylink_webhook_oldest_owed_age_seconds',
    'Age of the oldest webhook event still owed a delivery (0 when none is)',
  );
  return { up, payments, webhookEvents, webhookQueueDepth, webhookOldest };
}

/** Each chain's watcher, node, relayer and gasless relayer, by chain_id. */
function chainGauges(registers: Registry[]) {
  const gauge = gaugeOf(registers);
  const lagBlocks = gauge(
    'paylink_watcher_lag_blocks',
    "Blocks between the chain watcher's last scanned block and the node's head",
    CHAIN,
  );
  const lagSeconds = gauge(
    'paylink_watcher_lag_seconds',
    "Time between the watcher's last scanned block and the head block, by block timestamps",
    CHAIN,
  );
  const cursorAge = gauge(
    'paylink_watcher_cursor_age_seconds',
    'Time since the chain watcher last advanced its cursor',
    CHAIN,
  );
  const finalizedAge = gauge(
    'paylink_finalized_head_age_seconds',
    "Now minus the timestamp of the node's finalized block",
    CHAIN,
  );
  const relayerBalance = gauge(
    'paylink_relayer_balance_pol',
    // The `_pol` names stay (dashboards and alerts use them); the figure is in the chain's own token.
    "Native balance of the relayer account (pays settlement and burn gas), in the chain's native token (ETH, POL, AVAX), as last read",
    CHAIN,
  );
  const relayerLowBalance = gauge(
    'paylink_relayer_low_balance_pol',
    "The relayer balance below which the settler warns (PAYLINK_RELAYER_LOW_BALANCE), in the chain's native token",
    CHAIN,
  );
  const relayerBalanceAge = gauge(
    'paylink_relayer_balance_age_seconds',
    'Time since the settler last read the relayer balance (it reads it before each flush it sends)',
    CHAIN,
  );
  const gaslessAuthorizations = gauge(
    'paylink_gasless_authorizations',
    'Customers’ signed EIP-3009 authorizations by chain and status (pending, sent, mined, failed)',
    ['chain_id', 'status'],
  );
  const gaslessFees = gauge(
    'paylink_gasless_fees_pol',
    'Gas fees the gasless relayer paid, in POL: all time, and over the last hour (the cap’s window)',
    ['chain_id', 'window'],
  );
  return {
    lagBlocks,
    lagSeconds,
    cursorAge,
    finalizedAge,
    relayerBalance,
    relayerLowBalance,
    relayerBalanceAge,
    gaslessAuthorizations,
    gaslessFees,
  };
}

/** What is owed to merchants, and why it waits. */
function payoutGauges(registers: Registry[]) {
  const gauge = gaugeOf(registers);
  const payouts = gauge(
    'paylink_payouts',
    'Payouts owed to merchants: pending (waiting for a flush, or failing for less than PAYLINK_PAYOUT_DELAYED_AFTER) or delayed',
    ['state'],
  );
  const oldestDelayed = gauge(
    'paylink_payout_oldest_delayed_age_seconds',
    'How long the oldest delayed payout has been failing (0 when none is delayed)',
  );
  const failing = gauge(
    'paylink_payouts_failing',
    "Payments whose share fails to go out now (merchant: the merchant's; commission: the treasury's), by the token's reason",
    ['share', 'reason'],
  );
  const bridgeWaiting = gauge(
    'paylink_bridge_transfers_waiting',
    'Cross-chain transfers (CCTP) not done yet, by the step they wait in: burn, attest or mint',
    ['step'],
  );
  const bridgeOldest = gauge(
    'paylink_bridge_oldest_waiting_age_seconds',
    'Age of the oldest cross-chain transfer still waiting in each step',
    ['step'],
  );
  return { payouts, oldestDelayed, failing, bridgeWaiting, bridgeOldest };
}

/**
 * A value that could not be read is NaN ("unknown"), never the last one read: a dashboard shows a gap rather
 * than a stale number, and paylink_dependency_up says why.
 */
const setOrUnknown = (gauge: Gauge<string>, value: number | undefined, labels: Record<string, string> = {}) =>
  gauge.set(labels, value ?? Number.NaN);
const setByLabel = (gauge: Gauge<string>, label: string, counts: ReadonlyMap<string, number> | undefined) => {
  gauge.reset();
  for (const [value, count] of counts ?? []) gauge.set({ [label]: value }, count);
};

/** Sets every gauge of the service from one scrape's measurements. */
function recordMeasurements(gauges: ServiceGauges, m: ServiceMeasurements): void {
  gauges.up.reset();
  gauges.up.set({ dependency: 'database' }, m.databaseUp ? 1 : 0);
  setByLabel(gauges.payments, 'status', m.paymentsByStatus);
  setByLabel(gauges.webhookEvents, 'delivery_status', m.webhookEventsByStatus);
  const owed = m.webhookEventsByStatus;
  setOrUnknown(gauges.webhookQueueDepth, owed && (owed.get('pending') ?? 0) + (owed.get('delivering') ?? 0));
  setOrUnknown(gauges.webhookOldest, m.webhookOldestOwedSeconds);
  gauges.payouts.reset();
  gauges.failing.reset();
  setOrUnknown(gauges.payouts, m.payouts?.pending, { state: 'pending' });
  setOrUnknown(gauges.payouts, m.payouts?.delayed, { state: 'delayed' });
  setOrUnknown(gauges.oldestDelayed, m.payouts?.oldestDelayedSeconds);
  for (const f of m.payouts?.failing ?? []) gauges.failing.set({ share: f.share, reason: f.reason }, f.count);
  gauges.bridgeWaiting.reset();
  gauges.bridgeOldest.reset();
  for (const step of ['burn', 'attest', 'mint']) {
    const b = m.bridge?.find((s) => s.step === step);
    // Unknown (NaN) when the read failed, 0 when nothing waits: an alert on age never fires on a gap.
    setOrUnknown(gauges.bridgeWaiting, m.bridge && (b?.waiting ?? 0), { step });
    setOrUnknown(gauges.bridgeOldest, m.bridge && (b?.oldestSeconds ?? 0), { step });
  }
  for (const gauge of [gauges.relayerBalance, gauges.relayerLowBalance, gauges.relayerBalanceAge])
    gauge.reset();
  for (const r of m.relayers ?? []) {
    const labels = { chain_id: String(r.chainId) };
    gauges.relayerBalance.set(labels, pol(r.balanceWei));
    gauges.relayerLowBalance.set(labels, pol(r.lowBalanceWei));
    gauges.relayerBalanceAge.set(labels, r.ageSeconds);
  }
  for (const gauge of [gauges.gaslessAuthorizations, gauges.gaslessFees]) gauge.reset();
  for (const g of m.gasless ?? []) {
    const chain_id = String(g.chainId);
    for (const [status, count] of g.byStatus) gauges.gaslessAuthorizations.set({ chain_id, status }, count);
    gauges.gaslessFees.set({ chain_id, window: 'total' }, pol(g.feeWeiTotal));
    gauges.gaslessFees.set({ chain_id, window: '1h' }, pol(g.feeWeiSince));
  }
  // A chain no longer probed leaves no series behind.
  for (const gauge of [gauges.lagBlocks, gauges.lagSeconds, gauges.cursorAge, gauges.finalizedAge])
    gauge.reset();
  for (const chain of m.chains) {
    const labels = { chain_id: String(chain.chainId) };
    gauges.up.set({ dependency: 'rpc', ...labels }, chain.rpcUp ? 1 : 0);
    setOrUnknown(gauges.lagBlocks, chain.watcherLagBlocks, labels);
    setOrUnknown(gauges.lagSeconds, chain.watcherLagSeconds, labels);
    setOrUnknown(gauges.cursorAge, chain.watcherCursorAgeSeconds, labels);
    setOrUnknown(gauges.finalizedAge, chain.finalizedHeadAgeSeconds, labels);
  }
}

/** Whole POL plus the fraction to 1e-6: exact enough for a gauge, and no float ever sees 18 decimals. */
function pol(wei: bigint): number {
  return Number(wei / WEI_PER_POL) + Number((wei % WEI_PER_POL) / 10n ** 12n) / 1e6;
}
