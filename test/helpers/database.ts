import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  type DatabaseHandle,
  type Db,
  type DialectName,
  openDatabase,
} from '../../src/adapters/db/database.ts';
import type { DatabaseSchema } from '../../src/adapters/db/schema.ts';
import { finishBeforeFileEnds } from './fileEnd.ts';
import { copyMigratedSqlite, createMigratedPostgres } from './migratedTemplate.ts';

/**
 * One database test suite for every dialect: SQLite always, PostgreSQL when PAYLINK_TEST_DATABASE_URL names a
 * server. Each test database is new (a unique name per run) and dropped afterwards. With the variable set, an
 * unreachable server fails the suite — CI sets it, so the PostgreSQL tests can never be skipped silently there.
 */
export const POSTGRES_ADMIN_URL = process.env.PAYLINK_TEST_DATABASE_URL;

export const dialects: DialectName[] = POSTGRES_ADMIN_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * The one database a browser test runs on: PostgreSQL where the suite has one (production's), SQLite otherwise.
 * A browser test exercises pages, not queries; the queries behind every page run on both databases in the
 * dashboard's and checkout's HTTP tests, so a page driven twice in Chromium only doubled the time (issue 37).
 */
export const pageTestDialect: DialectName = POSTGRES_ADMIN_URL ? 'postgres' : 'sqlite';

if (!POSTGRES_ADMIN_URL && process.env.CI) {
  throw new Error('CI must set PAYLINK_TEST_DATABASE_URL: the PostgreSQL tests may not be skipped');
}

export interface TestDatabase {
  readonly url: string;
  readonly handle: DatabaseHandle;
  /** Closes the handle and removes the database (the removal finishes by the end of the test file). */
  drop(): Promise<void>;
}

/** Creates an empty database of that dialect (no migrations) and returns its URL. */
export function createEmptyDatabase(
  dialect: DialectName,
): Promise<{ url: string; drop: () => Promise<void> }> {
  return createDatabase(dialect, 'empty');
}

/**
 * A new database of that dialect, empty or a copy of the migrated template (test/helpers/migratedTemplate.ts),
 * its URL and how to remove it.
 */
async function createDatabase(
  dialect: DialectName,
  contents: 'empty' | 'migrated',
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'paylink-test-'));
    const path = join(dir, 'paylink.db');
    if (contents === 'migrated') await copyMigratedSqlite(path);
    return {
      url: `sqlite:${path}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!POSTGRES_ADMIN_URL) throw new Error('PAYLINK_TEST_DATABASE_URL is not set');
  const name = `paylink_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (contents === 'migrated') {
    await createMigratedPostgres(POSTGRES_ADMIN_URL, name);
  } else {
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
    } finally {
      await admin.end();
    }
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A migrated database of that dialect, open: a copy of the template the migrations made once. `drop` closes it
 * and leaves its removal to go on while the next test runs (DROP DATABASE takes PostgreSQL a few hundred
 * milliseconds): the file's end waits for it (test/helpers/fileEnd.ts).
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const created = await createDatabase(dialect, 'migrated');
  const handle = openDatabase(created.url);
  return {
    url: created.url,
    handle,
    drop: async () => {
      await handle.close();
      finishBeforeFileEnds(created.drop());
    },
  };
}

/** How many rows the table holds: what a test checks to see that a refused request wrote nothing. */
export async function countRows(db: Db, table: keyof DatabaseSchema): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
