import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db, DialectName } from './db.ts';
import { migrations } from './migrations/index.ts';
import {
  type FollowedPaymentChanges,
  postgresPaymentChanges,
  sqlitePaymentChanges,
} from './paymentChanges.ts';
import type { DatabaseSchema } from './schema.ts';
import { openSqliteConnection, reusingStatements } from './sqliteConnection.ts';
import { inlineSqliteWriter, type SqliteWriter, threadedSqliteWriter } from './sqliteWriter.ts';

export type { Db, DialectName } from './db.ts';

export interface DatabaseHandle {
  readonly db: Db;
  readonly dialect: DialectName;
  /** SQLite only: where a create's writes are committed, off the request thread (sqliteWriter.ts). */
  readonly sqliteWriter?: SqliteWriter;
  /** Starts following changes to payments, for the status read cache (its own connection on PostgreSQL). */
  followPaymentChanges(logger: Logger): FollowedPaymentChanges;
  close(): Promise<void>;
}

/** Opens the database named by a PAYLINK_DATABASE_URL: `sqlite:<path>` or `postgres://…`. */
export function openDatabase(url: string, options: { poolSize?: number } = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    const sqlite = openSqliteConnection(path);
    const statements = reusingStatements(sqlite);
    const db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: statements }) });
    const sqliteWriter = path === ':memory:' ? inlineSqliteWriter(sqlite, db) : threadedSqliteWriter(path);
    return {
      db,
      dialect: 'sqlite',
      sqliteWriter,
      followPaymentChanges: () => sqlitePaymentChanges(sqlite, statements.writes),
      close: async () => {
        await sqliteWriter.close();
        await db.destroy();
      },
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

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
