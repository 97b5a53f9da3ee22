import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * A connection to the store's SQLite file, with the settings every connection of the store needs: the main one
 * (database.ts) and the SQLite writer's own (sqliteWriter.ts) are opened here, so neither can commit with
 * weaker durability than the other.
 */
export function openSqliteConnection(path: string): SQLite.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  // WAL lets readers proceed while the single writer commits; busy_timeout absorbs short write contention.
  sqlite.pragma('journal_mode = WAL');
  // FULL: every commit is on disk before it returns. NORMAL would lose the last commits to an OS crash or a
  // power cut — a payment already answered 201, whose deposit address the customer may be paying. Creates
  // share commits (sqliteWriter.thread.ts), so the fsync is paid once per group.
  sqlite.pragma('synchronous = FULL');
  // A checkpoint (WAL pages copied into the database file, which is then synced) runs inside whichever commit
  // crosses the threshold. Every 10,000 pages (about 40 MB of WAL) instead of SQLite's 1,000: a page written
  // again and again between checkpoints (the last leaf of every index a create appends to) is copied once
  // (the figures are in docs/performance.md).
  sqlite.pragma('wal_autocheckpoint = 10000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return sqlite;
}

/** What `pragma synchronous` and `pragma journal_mode` read on a connection: its durability, for the tests. */
export interface ConnectionDurability {
  readonly synchronous: number;
  readonly journalMode: string;
}

export function connectionDurability(sqlite: SQLite.Database): ConnectionDurability {
  return {
    synchronous: Number(sqlite.pragma('synchronous', { simple: true })),
    journalMode: String(sqlite.pragma('journal_mode', { simple: true })),
  };
}

/** Statements kept prepared; past this, the least recently used is finalized (IN lists vary in length). */
const MAX_PREPARED_STATEMENTS = 500;

/**
 * Kysely prepares every query anew, and on SQLite preparing costs as much as running a point query
 * (figures in docs/performance.md). Statements are reused by their SQL text. Safe because Kysely's
 * SQLite driver runs one query at a time on the one connection (a mutex), and SQLite re-prepares a statement
 * by itself if the schema changed under it.
 *
 * Also counts the writes, as they are prepared (just before they run): the status read cache's change mark.
 */
export function reusingStatements(sqlite: SQLite.Database): SqliteDatabase & { writes: () => number } {
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
