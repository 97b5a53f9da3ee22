import pg from 'pg';
import type { JobLocks } from '../../app/operations/ports.ts';

const HEARTBEAT_MS = 5_000;

/**
 * Worker singletons (the chain cursor, the relayer's nonce) must run in one process at a time. On PostgreSQL
 * each is a session advisory lock held on a dedicated connection: if the holder dies, its connection closes,
 * PostgreSQL releases the lock, and another worker takes the role. On SQLite there is one process only
 * (sqliteProcessLock), so the lock is a formality.
 */
export function postgresSingletonLocks(connectionString: string): JobLocks {
  return {
    async tryAcquire(name) {
      const client = new pg.Client({ connectionString, application_name: `paylink:${name}` });
      const lost = new AbortController();
      client.on('error', () => lost.abort());
      client.on('end', () => lost.abort());
      await client.connect();
      const result = await client.query<{ ok: boolean }>(
        'select pg_try_advisory_lock(hashtextextended($1, 0)) as ok',
        [`paylink:${name}`],
      );
      if (!result.rows[0]?.ok) {
        await client.end();
        return undefined;
      }
      // A half-open connection would keep the lock on the server while we think we hold it: ping it.
      const heartbeat = setInterval(() => {
        client.query('select 1').catch(() => lost.abort());
      }, HEARTBEAT_MS);
      heartbeat.unref();
      return {
        lost: lost.signal,
        async release() {
          clearInterval(heartbeat);
          if (lost.signal.aborted) return;
          await client
            .query('select pg_advisory_unlock(hashtextextended($1, 0))', [`paylink:${name}`])
            .catch(() => {});
          await client.end().catch(() => {});
        },
      };
    },
  };
}

export function inProcessSingletonLocks(): JobLocks {
  const held = new Set<string>();
  return {
    async tryAcquire(name) {
      if (held.has(name)) return undefined;
      held.add(name);
      return {
        lost: new AbortController().signal,
        async release() {
          held.delete(name);
        },
      };
    },
  };
}
