import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class DatabaseInUseError extends Error {
  override readonly name = 'DatabaseInUseError';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * SQLite serves one `paylink serve` process: a second would run a second chain watcher and relayer on the same
 * cursor and nonce. The lock file holds the owner's pid; a file left by a process that died is taken over.
 * (Short-lived admin commands — `paylink merchant …` — may still use the database meanwhile.)
 */
export function acquireSqliteProcessLock(databasePath: string): () => void {
  const lockPath = `${databasePath}.serve.lock`;
  // On a fresh checkout the database's directory (./data) does not exist yet: the lock comes first.
  mkdirSync(dirname(databasePath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(lockPath);
        } catch {}
      };
      process.once('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isSafeInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseInUseError(
          `Another paylink process (pid ${owner}) is serving ${databasePath}. SQLite supports one process; ` +
            'use PostgreSQL (PAYLINK_DATABASE_URL=postgres://…) to run several.',
        );
      }
      try {
        unlinkSync(lockPath); // left by a process that died
      } catch {}
    }
  }
  throw new DatabaseInUseError(`could not take the lock ${lockPath}`);
}
