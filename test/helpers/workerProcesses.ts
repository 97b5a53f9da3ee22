import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Worker processes a crash test starts (a fixture script under tsx) and kills: each one's log is read, so a full
 * pipe can never block it, and the end of all of it is kept for a failure's message.
 */
export interface WorkerProcesses {
  /** Starts the script with only PATH and `env` in its environment. */
  start(env: Record<string, string>): ChildProcess;
  /** The last 4,000 characters the workers wrote to stderr. */
  log(): string;
  /** SIGKILL to every worker still running (the test's afterEach). */
  killAll(): void;
}

export function workerProcesses(script: string): WorkerProcesses {
  const children: ChildProcess[] = [];
  let log = '';
  return {
    start(env) {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        log = (log + chunk).slice(-4_000);
      });
      children.push(child);
      return child;
    },
    log: () => log,
    killAll() {
      for (const child of children.splice(0))
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Resolves once the process has ended (at once when it already has). */
export const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));
