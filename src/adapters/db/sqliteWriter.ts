import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { EmailMessage } from '../../app/email/ports.ts';
import type { IdempotencyClaim } from '../../app/payments/ports.ts';
import {
  type CompletedKey,
  type CreateWrite,
  createWriteRunner,
  type PaymentInsert,
  type PaymentRowValues,
  rowValues,
} from './createWrites.ts';
import type { Db } from './db.ts';
import type { ClaimRequest, ReleaseRequest } from './idempotencyKeys.ts';
import { type ConnectionDurability, connectionDurability } from './sqliteConnection.ts';

/**
 * Where a create's writes are committed on SQLite: the new payment, and the claim and completion of its
 * idempotency key. better-sqlite3 is synchronous: on the request thread every commit of a create (the row into
 * seven B-trees, the WAL write, the fsync of `synchronous = FULL`) stopped every other request for its whole
 * length, about a quarter of a create (docs/performance.md). The writer has a connection of its own on a thread
 * of its own: the request thread hands it the write and goes on serving, and each create is answered once its
 * write is committed, as before.
 *
 * Group commit happens on the writer's thread: the writes that arrived while it was committing are committed
 * together next, in one transaction and one fsync (sqliteWriter.thread.ts). A write never waits for more than
 * the commit in progress.
 *
 * The writer's connection is a second connection to the same file, opened with the same settings
 * (sqliteConnection.ts). WAL lets the two read at once, and SQLite lets one write at a time: a write on the main
 * connection waits (busy_timeout) while the writer commits, which is why the idempotency key's claim, a write on
 * every create that carries one, is made here too. The writer's commits reach the main connection's readers as any
 * other connection's do, and the status read cache sees them through `pragma data_version` (paymentChanges.ts).
 */
export interface SqliteWriter {
  /**
   * Commits the payment's row (with the writes that arrive meanwhile), completing its idempotency key and
   * queueing its request e-mail in the same transaction.
   */
  insertPayment(row: PaymentRowValues, completedKey?: CompletedKey, email?: EmailMessage): Promise<void>;
  claimIdempotencyKey(request: ClaimRequest): Promise<IdempotencyClaim>;
  releaseIdempotencyKey(request: ReleaseRequest): Promise<void>;
  /** The writer connection's durability, as its own `pragma`s read it. */
  durability(): Promise<ConnectionDurability>;
  /** Waits for what is in flight, then closes the connection (and ends the thread). */
  close(): Promise<void>;
}

/** What the thread is asked (sqliteWriter.thread.ts answers), each under its own number. */
export type WriterRequest =
  | { readonly kind: 'write'; readonly id: number; readonly write: CreateWrite }
  | { readonly kind: 'durability'; readonly id: number }
  | { readonly kind: 'close'; readonly id: number };

/** What the thread answers: requests done with their results (one message for a whole commit), or one failed. */
export type WriterReply =
  | { readonly done: readonly number[]; readonly results: readonly unknown[] }
  | { readonly failed: number; readonly message: string; readonly code?: string };

/** What the thread is started with. */
export interface WriterThreadData {
  readonly path: string;
}

/** The error a failed write rejects with: the database's message and code (SQLITE_…), as on the caller's thread. */
export class SqliteWriteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'SqliteWriteError';
  }
}

/**
 * A writer's payment inserts: the columns of its first payment row, joined, and each row's values in their
 * order (later rows are checked against them), with the idempotency key the payment completes.
 */
function paymentInserts(): (
  row: PaymentRowValues,
  completedKey?: CompletedKey,
  email?: EmailMessage,
) => PaymentInsert {
  let columns: { names: readonly string[]; joined: string } | undefined;
  return (row, completedKey, email) => {
    if (!columns) {
      const names = Object.keys(row);
      columns = { names, joined: names.join(',') };
    }
    return {
      columns: columns.joined,
      values: rowValues(columns.names, row),
      ...(completedKey ? { completedKey } : {}),
      ...(email ? { email } : {}),
    };
  };
}

/**
 * The writer on a thread of its own, for a database file. The thread is started at the first write (most
 * processes that open the database never create a payment: the CLI, the background worker) and again after it
 * died, which fails only the writes it had.
 */
export function threadedSqliteWriter(path: string): SqliteWriter {
  let thread: Worker | undefined;
  let nextId = 0;
  const pending = new Map<
    number,
    { thread: Worker; resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  const insertOf = paymentInserts();

  /** Fails what a thread that died had been asked (and only that: a new thread may have been started since). */
  const failPending = (dead: Worker, error: Error) => {
    for (const [id, waiting] of pending) {
      if (waiting.thread !== dead) continue;
      waiting.reject(error);
      pending.delete(id);
    }
  };
  const settle = (reply: WriterReply) => {
    if ('failed' in reply) {
      pending.get(reply.failed)?.reject(new SqliteWriteError(reply.message, reply.code));
      pending.delete(reply.failed);
      return;
    }
    reply.done.forEach((id, i) => {
      pending.get(id)?.resolve(reply.results[i]);
      pending.delete(id);
    });
  };
  let closing: Worker | undefined;
  const start = (): Worker => {
    const started = startThread({ path });
    started.on('message', (reply: WriterReply) => {
      settle(reply);
      // Idle, the thread does not keep the process alive; a write waiting for it does, and so does its end
      // once closed: a process whose last work is awaiting that end would otherwise exit (code 13) first.
      if (pending.size === 0 && closing !== started) started.unref();
    });
    started.on('error', (error) => {
      if (thread === started) thread = undefined;
      failPending(started, new SqliteWriteError(`the SQLite writer failed: ${error.message}`));
    });
    started.on('exit', (code) => {
      if (thread === started) thread = undefined;
      failPending(started, new SqliteWriteError(`the SQLite writer stopped (exit code ${code})`));
    });
    return started;
  };
  /**
   * Posted at once. Gathering the writes of a turn of the event loop into one message saved posts, but each
   * write then waited for the turn's end, and the API's requests for the commits: the request thread stood idle
   * a quarter of the time (docs/performance.md).
   */
  const ask = (request: { kind: 'durability' | 'close' } | { kind: 'write'; write: CreateWrite }) => {
    const id = nextId;
    nextId += 1;
    thread ??= start();
    const asked = thread;
    const answer = new Promise<unknown>((resolve, reject) =>
      pending.set(id, { thread: asked, resolve, reject }),
    );
    asked.ref();
    asked.postMessage({ ...request, id });
    return answer;
  };

  return {
    insertPayment: async (row, completedKey, email) => {
      await ask({ kind: 'write', write: { kind: 'insert', insert: insertOf(row, completedKey, email) } });
    },
    claimIdempotencyKey: async (claim) =>
      (await ask({ kind: 'write', write: { kind: 'claim', claim } })) as IdempotencyClaim,
    releaseIdempotencyKey: async (release) => {
      await ask({ kind: 'write', write: { kind: 'release', release } });
    },
    durability: async () => (await ask({ kind: 'durability' })) as ConnectionDurability,
    close: async () => {
      const ending = thread;
      if (!ending) return;
      closing = ending;
      const ended = new Promise((resolve) => ending.once('exit', resolve));
      // Answered after everything asked before it (the thread answers in order), then the thread ends.
      await ask({ kind: 'close' });
      await ended;
    },
  };
}

/**
 * The thread runs the same code the caller does: the built JavaScript in production (dist/), the TypeScript
 * sources in a checkout. There the thread first registers tsx's CommonJS loader, which compiles the sources as
 * they are required: a module loader registered in one thread does not load another's modules, and on Node.js
 * 20 an ESM loader cannot be registered in a thread at all.
 */
function startThread(workerData: WriterThreadData): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./sqliteWriter.thread.js', here), { workerData });
  const tsx = createRequire(here).resolve('tsx/cjs');
  const entry = fileURLToPath(new URL('./sqliteWriter.thread.ts', here));
  // Evaluated as CommonJS or as a module, as the process's own flags decide (--input-type): `import()` and a
  // `require` made here work in both.
  const boot = `import('node:module').then(({ createRequire }) => { const require = createRequire(${JSON.stringify(entry)}); require(${JSON.stringify(tsx)}); require(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

/**
 * The writer on the caller's own connection, for an in-memory database (another connection would see another
 * database): each write committed at once, on the caller's thread.
 */
export function inlineSqliteWriter(sqlite: SQLite.Database, db: Db): SqliteWriter {
  const run = createWriteRunner(sqlite, db);
  const insertOf = paymentInserts();
  return {
    insertPayment: async (row, completedKey, email) => {
      await run([{ kind: 'insert', insert: insertOf(row, completedKey, email) }]);
    },
    claimIdempotencyKey: async (claim) => (await run([{ kind: 'claim', claim }]))[0] as IdempotencyClaim,
    releaseIdempotencyKey: async (release) => {
      await run([{ kind: 'release', release }]);
    },
    durability: async () => connectionDurability(sqlite),
    close: async () => {},
  };
}
