import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSingletonLocks } from '../../src/adapters/db/singletonLocks.ts';
import { acquireSqliteProcessLock, DatabaseInUseError } from '../../src/adapters/db/sqliteProcessLock.ts';
import { spawnCli } from '../helpers/cli.ts';
import { createEmptyDatabase, dialects } from '../helpers/database.ts';
import { eventually } from '../helpers/net.ts';

describe.runIf(dialects.includes('postgres'))('worker singletons on PostgreSQL advisory locks', () => {
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ url, drop } = await createEmptyDatabase('postgres'));
  });
  afterAll(() => drop());

  it('grants a role to one process at a time, and to the next when it is released', async () => {
    const a = postgresSingletonLocks(url);
    const b = postgresSingletonLocks(url);
    const held = await a.tryAcquire('chain-watcher:137');
    expect(held).toBeDefined();
    expect(await b.tryAcquire('chain-watcher:137')).toBeUndefined();
    const other = await b.tryAcquire('relayer:137');
    expect(other).toBeDefined();
    await held!.release();
    const taken = await b.tryAcquire('chain-watcher:137');
    expect(taken).toBeDefined();
    await taken!.release();
    await other!.release();
  });

  it('hands the role over when the holder’s connection dies, and tells the holder it lost it', async () => {
    const a = postgresSingletonLocks(url);
    const b = postgresSingletonLocks(url);
    const held = await a.tryAcquire('expirer');
    expect(held!.lost.aborted).toBe(false);
    // What a killed process looks like to PostgreSQL: its session ends.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(
      // This database's only: other files' services on the same server have expirers of their own.
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'paylink:expirer' and datname = current_database()",
    );
    await admin.end();
    const taken = await eventually(
      () => b.tryAcquire('expirer'),
      (lease) => lease !== undefined,
      300,
      100,
    );
    expect(taken).toBeDefined();
    expect(held!.lost.aborted).toBe(true);
    await held!.release();
    await taken!.release();
  });
});

describe('one serving process on SQLite', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'paylink-lock-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second `paylink serve` with a clear message', async () => {
    const path = join(dir, 'paylink.db');
    const release = acquireSqliteProcessLock(path);
    try {
      expect(() => acquireSqliteProcessLock(path)).not.toThrow(); // the same process may re-enter
      const second = await spawnCli(['serve', '--role', 'api'], {
        PAYLINK_DATABASE_URL: `sqlite:${path}`,
        PAYLINK_NETWORK: 'polygon',
      });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`Another paylink process (pid ${process.pid}) is serving`);
      expect(second.stderr).toContain('use PostgreSQL');
    } finally {
      release();
    }
  });

  it('takes over a lock left by a process that died, and then holds it against others', async () => {
    const path = join(dir, 'stale.db');
    const lockFile = `${path}.serve.lock`;
    writeFileSync(lockFile, '999999999'); // no such process
    const release = acquireSqliteProcessLock(path);
    try {
      expect(readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
      const second = await spawnCli(['serve', '--role', 'api'], {
        PAYLINK_DATABASE_URL: `sqlite:${path}`,
        PAYLINK_NETWORK: 'polygon',
      });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`Another paylink process (pid ${process.pid}) is serving`);
    } finally {
      release();
    }
    expect(existsSync(lockFile)).toBe(false);
  });

  it('refuses while the owner is alive, naming it', () => {
    const path = join(dir, 'alive.db');
    const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${path}.serve.lock`, String(owner.pid));
      expect(() => acquireSqliteProcessLock(path)).toThrow(DatabaseInUseError);
      expect(() => acquireSqliteProcessLock(path)).toThrow(`pid ${owner.pid}`);
    } finally {
      owner.kill('SIGKILL');
    }
  });
});
