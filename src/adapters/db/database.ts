import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, type SqliteDatabase, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrations } from './migrations/index.ts';
import {
  type FollowedPaymentChanges,
  postgresPaymentChanges,
  sqlitePaymentChanges,
} from './paymentChanges.ts';
import type { DatabaseSchema } from './schema.ts';

export type Db = Kysely<DatabaseSchema>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Db;
  readonly dialect: DialectName;
  /** Starts following changes to payments, for the status read cache (its own connection on PostgreSQL). */
  followPaymentChanges(logger: Logger): FollowedPaymentChanges;
  close(): Promise<void>;
}

/** Opens the database named by a PAYLINK_DATABASE_URL: `sqlite:<path>` or `postgres://…`. */
export function openDatabase(url: string, options: { poolSize?: number } = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    // WAL lets readers proceed while the single writer commits; busy_timeout absorbs short write contention.
    sqlite.pragma('journal_mode = WAL');
    // FULL: every commit is on disk before it returns. NORMAL would lose the last commits to an OS crash or a
    // power cut — a payment already answered 201, whose deposit address the customer may be paying. Creates
    // share commits (groupCommit.ts), so the fsync is paid once per batch.
    sqlite.pragma('synchronous = FULL');
    // A checkpoint (WAL pages copied into the database file, which is then synced) runs inside whichever commit
    // crosses the threshold, on the event loop. Every 10,000 pages (about 40 MB of WAL) instead of SQLite's
    // 1,000: a page written again and again between checkpoints (the last leaf of every index a create appends
    // to) is copied once; ten-row inserts took a fifth less time per row (docs/performance.md).
    sqlite.pragma('wal_autocheckpoint = 10000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const statements = reusingStatements(sqlite);
    const db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: statements }) });
    return {
      db,
      dialect: 'sqlite',
      followPaymentChanges: () => sqlitePaymentChanges(sqlite, statements.writes),
      close: () => db.destroy(),
    };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      followPaymentChanges: (logger) => postgresPaymentChanges(url, logger),
      close: () => db.destroy(),
    };
  }
  throw new Error('database URL must be sqlite:<path> or postgres://…');
}

/** Statements kept prepared; past this, the least recently used is finalized (IN lists vary in length). */
const MAX_PREPARED_STATEMENTS = 500;

/**
 * Kysely prepares every query anew, and on SQLite preparing costs as much as running a point query
 * (bench/api.ts: a sixth of a status request). Statements are reused by their SQL text. Safe because Kysely's
 * SQLite driver runs one query at a time on the one connection (a mutex), and SQLite re-prepares a statement
 * by itself if the schema changed under it.
 *
 * Also counts the writes, as they are prepared (just before they run): the status read cache's change mark.
 */
function reusingStatements(sqlite: SQLite.Database): SqliteDatabase & { writes: () => number } {
  const statements = new Map<string, SQLite.Statement>();
  let writes = 0;
  return {
    writes: () => writes,
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (statements.size >= MAX_PREPARED_STATEMENTS) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      if (!statement.reader) writes += 1;
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
