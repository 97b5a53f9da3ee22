import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PAYLINK_BIN = fileURLToPath(new URL('../../bin/paylink.js', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `paylink <args>` as a real process, as an operator would. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [PAYLINK_BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', PAYLINK_LOG_LEVEL: 'warn', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
