import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAYLINK_BIN } from './cli.ts';
import { eventually, freePort } from './net.ts';

/** `paylink serve` on the sandbox, as a newcomer starts it, in a directory and on ports of its own. */
export interface SandboxProcess {
  /** The environment it runs with (for `paylink` commands against the same sandbox). */
  readonly env: Record<string, string>;
  readonly apiUrl: string;
  readonly checkoutUrl: string;
  readonly rpcUrl: string;
  /** Its second chain's node (`sandbox-2`, chain 31338) and its local attestation service. */
  readonly secondRpcUrl: string;
  readonly attestationUrl: string;
  /** The demo merchant's id and API keys, from the file the sandbox writes. */
  readonly merchantId: string;
  readonly apiKey: string;
  /** Its test-mode key (`sk_test_`): on the sandbox, test payments use the same chain. */
  readonly testApiKey: string;
  /** Everything it printed so far: the banner, then its JSON log lines. */
  output(): string;
  /** SIGTERM, waits for the exit, and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts the sandbox (its two anvil chains, attestation service, demo merchant, worker) with a fresh SQLite
 * database in a directory that does not exist yet (as ./data on a fresh checkout), plus `env`, and waits for its
 * banner. Every port is one of its own: left to the defaults, the second chain and the attestation service would
 * sit on the two ports after the first chain's, which another sandbox test running at once may hold.
 */
export async function startSandbox(env: Record<string, string> = {}): Promise<SandboxProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-sandbox-'));
  const [apiPort, checkoutPort, rpcPort, inboxPort, secondRpcPort, attestationPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const fullEnv = {
    PATH: process.env.PATH ?? '',
    PAYLINK_DATABASE_URL: `sqlite:${join(dir, 'data', 'paylink.db')}`,
    PAYLINK_API_PORT: String(apiPort),
    PAYLINK_CHECKOUT_PORT: String(checkoutPort),
    PAYLINK_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    PAYLINK_SANDBOX_2_RPC_URL: `http://127.0.0.1:${secondRpcPort}`,
    PAYLINK_CCTP_ATTESTATION_URL: `http://127.0.0.1:${attestationPort}`,
    PAYLINK_SANDBOX_WEBHOOK_PORT: String(inboxPort),
    PAYLINK_POLL_INTERVAL: '250ms',
    PAYLINK_LOG_LEVEL: 'info',
    ...env,
  };
  const server: ChildProcess = spawn(process.execPath, [PAYLINK_BIN, 'serve'], {
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  server.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  server.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (server.exitCode !== null)
          throw new Error(`paylink serve exited (${server.exitCode}): ${errors}${output}`);
        return output;
      },
      (text) => text.includes('API key'),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const merchant = JSON.parse(readFileSync(join(dir, 'data', 'sandbox-merchant.json'), 'utf8')) as {
    merchantId: string;
    apiKey: string;
    testApiKey: string;
  };
  return {
    env: fullEnv,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    checkoutUrl: `http://127.0.0.1:${checkoutPort}`,
    rpcUrl: fullEnv.PAYLINK_RPC_URL,
    secondRpcUrl: fullEnv.PAYLINK_SANDBOX_2_RPC_URL,
    attestationUrl: fullEnv.PAYLINK_CCTP_ATTESTATION_URL,
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
    testApiKey: merchant.testApiKey,
    output: () => output,
    stop,
  };
}
