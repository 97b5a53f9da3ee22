import { execFile } from 'node:child_process';
import { main } from '../../src/main/cli.ts';
import { builtPaylinkBin } from './builtCli.ts';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const BASE_ENV = { PAYLINK_LOG_LEVEL: 'warn' };

/**
 * Runs `paylink <args>` in this process, with only `env` for its environment and its output captured: what the
 * command does and prints, without the two to three seconds a new Node process takes to load the sources.
 * Whatever depends on being a process of its own (signals, exit, locks held by a pid) uses `spawnCli`.
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    env: { ...BASE_ENV, ...env },
    terminal: {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
    },
  });
  return { code, stdout, stderr };
}

/** Runs `paylink <args>` as a real process, as an operator would: the production build (`builtPaylinkBin`). */
export async function spawnCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const bin = await builtPaylinkBin();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { PATH: process.env.PATH ?? '', ...BASE_ENV, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
