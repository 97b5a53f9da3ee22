import { randomUUID } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Logger } from 'pino';
import type { PaymentChangeMarks } from '../../app/payments/ports.ts';

/** Change marks with the connection behind them, closed with the process. */
export interface FollowedPaymentChanges extends PaymentChangeMarks {
  close(): Promise<void>;
}

/** The channel migration 0009's PostgreSQL triggers notify, with the payment id as the payload. */
export const PAYMENT_CHANGES_CHANNEL = 'paylink_payment_changes';
/** Payload of the listener's own check that notifications reach it; no payment id starts so. */
const PROBE_PREFIX = 'probe:';
const PROBE_TIMEOUT_MS = 5_000;
/** How the listening connection shows in pg_stat_activity. */
export const PAYMENT_CHANGES_APPLICATION_NAME = 'paylink-payment-changes';

/** How often SQLite is asked whether another connection wrote (a check per read cost a fifth of a cached one). */
const SQLITE_EXTERNAL_WRITES_POLL_MS = 100;

/**
 * SQLite: this connection's own writes are counted by `database.ts` as they are prepared, so they change the
 * marks at once. Another connection's (the CLI's: only one server process may open the database) changes
 * `PRAGMA data_version`, which is read every 100 ms. Any write changes every payment's mark: coarse, but a
 * check costs nothing.
 */
export function sqlitePaymentChanges(
  sqlite: SQLite.Database,
  localWrites: () => number,
): FollowedPaymentChanges {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let externalWrites = dataVersion.get();
  const poll = setInterval(() => {
    if (sqlite.open) externalWrites = dataVersion.get();
  }, SQLITE_EXTERNAL_WRITES_POLL_MS);
  poll.unref();
  return {
    markOf: () => `${externalWrites}.${localWrites()}`,
    close: async () => clearInterval(poll),
  };
}

export interface PostgresPaymentChangesOptions {
  /** Wait before listening again after the connection is lost. */
  readonly retryMs?: number;
  /** Payments whose last change is remembered one by one; older changes fold into one floor mark. */
  readonly maxTracked?: number;
}

/**
 * The payments' marks, which only increase: a payment's mark is the number of its last change, or the floor once
 * it is forgotten; at most `maxTracked` are kept.
 */
function changeMarks(maxTracked: number) {
  let sequence = 0;
  let floor = 0;
  const lastChange = new Map<string, number>();
  return {
    note(paymentId: string): void {
      sequence += 1;
      lastChange.delete(paymentId);
      lastChange.set(paymentId, sequence);
      if (lastChange.size > maxTracked) {
        // The oldest goes and the floor rises to its mark: its own mark is unchanged, untracked ones move on.
        const [oldest, mark] = lastChange.entries().next().value!;
        lastChange.delete(oldest);
        floor = mark;
      }
    },
    markOf: (paymentId: string): number => lastChange.get(paymentId) ?? floor,
  };
}

/**
 * Sends a notification and waits for it to come back on the same connection: proof that notifications reach
 * this connection (a transaction pooler in between would lose them, and then nothing may be cached). `probes`
 * is where the connection's notification handler finds the waiting probe by its token.
 */
async function probe(client: pg.Client, probes: Map<string, () => void>): Promise<void> {
  const token = `${PROBE_PREFIX}${randomUUID()}`;
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      probes.set(token, resolve);
      timer = setTimeout(
        () => reject(new Error('no notification came back: is a pooler in between?')),
        PROBE_TIMEOUT_MS,
      );
      client.query('select pg_notify($1, $2)', [PAYMENT_CHANGES_CHANNEL, token]).catch(reject);
    });
  } finally {
    clearTimeout(timer);
    probes.delete(token);
  }
}

/**
 * PostgreSQL: one connection LISTENs to the triggers' notifications, which PostgreSQL delivers once the
 * writing transaction commits. A payment's mark is the number of the last notification about it. Marks also
 * carry the connection's generation, and while not listening there is no mark at all: a change made while
 * nobody listened can never leave an old mark valid.
 *
 * Starts listening in the background, and follows changes only once a probe notification has come back: a
 * database that is down at start-up only means nothing is cached yet.
 */
export function postgresPaymentChanges(
  connectionString: string,
  logger: Logger,
  options: PostgresPaymentChangesOptions = {},
): FollowedPaymentChanges {
  const retryMs = options.retryMs ?? 1_000;
  const maxTracked = options.maxTracked ?? 10_000;
  let generation = 0;
  let listening: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  // Warned once per outage, not once per retry.
  let setupFailed = false;
  const marks = changeMarks(maxTracked);
  const probes = new Map<string, () => void>();

  const noteChange = (message: pg.Notification) => {
    if (message.channel !== PAYMENT_CHANGES_CHANNEL || !message.payload) return;
    if (message.payload.startsWith(PROBE_PREFIX)) {
      probes.get(message.payload)?.();
      return;
    }
    marks.note(message.payload);
  };

  const lose = (client: pg.Client, error?: Error) => {
    client.removeAllListeners('notification');
    if (listening === client) {
      listening = null;
      if (!closed)
        logger.warn({ err: error }, 'stopped following payment changes; status reads are not cached');
    }
    client.end().catch(() => {});
    if (!closed && retry === undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        void listen();
      }, retryMs);
      retry.unref();
    }
  };

  const listen = async () => {
    const client = new pg.Client({ connectionString, application_name: PAYMENT_CHANGES_APPLICATION_NAME });
    client.on('error', (error) => lose(client, error));
    client.on('end', () => lose(client));
    client.on('notification', noteChange);
    try {
      await client.connect();
      await client.query(`listen ${PAYMENT_CHANGES_CHANNEL}`);
      await probe(client, probes);
    } catch (error) {
      if (!closed && !setupFailed) {
        logger.warn({ err: error }, 'cannot follow payment changes (retrying); status reads are not cached');
      }
      setupFailed = true;
      lose(client, error as Error);
      return;
    }
    setupFailed = false;
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    generation += 1;
    listening = client;
    logger.info('following payment changes');
  };
  void listen();

  return {
    markOf(paymentId) {
      if (listening === null) return null;
      return `${generation}.${marks.markOf(paymentId)}`;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const client = listening;
      listening = null;
      await client?.end().catch(() => {});
    },
  };
}
