import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../../src/adapters/db/database.ts';

/**
 * A database migrated once and copied for every test, instead of every test running all the migrations again
 * (about 1.5 s on SQLite and 4 s on PostgreSQL each on the shared two-core machine, for hundreds of tests).
 *
 * The template is named after a hash of the migrations' sources, so a changed or added migration makes a new
 * one; it outlives the run, and later runs and the other worker reuse it. Older ones are never dropped here:
 * other checkouts of the project (a branch with a migration more) may be cloning them on the same server at
 * that moment. A copy is the very database the migrations make: the same file on SQLite, and PostgreSQL's own
 * CREATE DATABASE … TEMPLATE.
 */
const MIGRATIONS_DIR = new URL('../../src/adapters/db/migrations/', import.meta.url);
const TEMPLATE_PREFIX = 'paylink_migrated_';

/** The hash of every migration source (names and contents): what a template was made from. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(new URL(name, MIGRATIONS_DIR)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

let hashOfThisRun: string | undefined;
const hashNow = (): string => {
  hashOfThisRun ??= migrationsHash();
  return hashOfThisRun;
};

/**
 * Copies the migrated SQLite template into `path`, making the template first if this machine has none for
 * these migrations. It is made under a name of its own and renamed into place, so two workers making it at
 * once each leave a whole file, never half of one.
 */
export async function copyMigratedSqlite(path: string): Promise<void> {
  const template = join(tmpdir(), `paylink-migrated-${hashNow()}.db`);
  if (!existsSync(template)) {
    const building = `${template}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const handle = openDatabase(`sqlite:${building}`);
    try {
      await migrateToLatest(handle.db);
    } finally {
      // Closing checkpoints the write-ahead log into the file and removes it: the file alone is the database.
      await handle.close();
    }
    renameSync(building, template);
    for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  }
  copyFileSync(template, path);
}

/**
 * Creates PostgreSQL database `name` from the migrated template on the server of `adminUrl`, making the
 * template first when the server has none for these migrations (under an advisory lock, so the two workers
 * make it once between them).
 */
export async function createMigratedPostgres(adminUrl: string, name: string): Promise<void> {
  const template = `${TEMPLATE_PREFIX}${hashNow()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (!(await databaseExists(admin, template))) await makeTemplate(admin, adminUrl, template);
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
}

/** Any fixed number: the advisory lock the template's makers share. */
const TEMPLATE_LOCK = 7_424_001;

async function makeTemplate(admin: pg.Client, adminUrl: string, template: string): Promise<void> {
  await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    // The other worker may have made it while this one waited for the lock.
    if (await databaseExists(admin, template)) return;
    const building = `${template}_building_${process.pid}`;
    await admin.query(`drop database if exists ${building} with (force)`);
    await admin.query(`create database ${building}`);
    const url = new URL(adminUrl);
    url.pathname = `/${building}`;
    const handle = openDatabase(url.toString(), { poolSize: 1 });
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
    await admin.query(`alter database ${building} rename to ${template}`);
  } finally {
    await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

async function databaseExists(admin: pg.Client, name: string): Promise<boolean> {
  const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
  return (found.rowCount ?? 0) > 0;
}
