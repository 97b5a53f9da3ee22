import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtPaylinkBin } from './builtCli.ts';
import { eventually, freePort } from './net.ts';

/** `paylink serve` on the sandbox, as a newcomer starts it, in a directory and on ports of its own. */
export interface SandboxProcess {
  /** The environment it runs with (for `paylink` commands against the same sandbox). */
  readonly env: Record<string, string>;
  readonly apiUrl: string;
  readonly checkoutUrl: string;
  readonly rpcUrl: string;
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

/** A sandbox started with its second chain (startSandboxWithSecondChain). */
export interface SandboxWithSecondChain extends SandboxProcess {
  /** Its second chain's node (`sandbox-2`, chain 31338) and its local attestation service. */
  readonly secondRpcUrl: string;
  readonly attestationUrl: string;
}

/**
 * Starts the sandbox (its chain, demo merchant, worker) with a fresh SQLite database in a directory that does not
 * exist yet (as ./data on a fresh checkout), plus `env`, and waits for its banner; every port is one of its own.
 *
 * Without its second chain (PAYLINK_CHAINS empty, as an operator turns it off): a test about links, shops or
 * e-mail pays on the first chain only, and the second anvil, CCTP's deployment on both chains and the
 * attestation service polling both cost it time and the shared machine CPU for nothing. The tests of the second
 * chain and of `npm start` as it is use startSandboxWithSecondChain (or spawn `paylink serve` themselves).
 */
export function startSandbox(env: Record<string, string> = {}): Promise<SandboxProcess> {
  return startSandboxProcess({ PAYLINK_CHAINS: '', ...env });
}

/**
 * The sandbox as `npm start` runs it, with its second chain (`sandbox-2`), CCTP on both chains and the local
 * attestation service, each on a port of its own: left to the defaults, the second chain and the attestation
 * service would sit on the ports after the first chain's, which another sandbox test running at once may hold.
 */
export async function startSandboxWithSecondChain(
  env: Record<string, string> = {},
): Promise<SandboxWithSecondChain> {
  const second = {
    PAYLINK_SANDBOX_2_RPC_URL: `http://127.0.0.1:${await freePort()}`,
    PAYLINK_CCTP_ATTESTATION_URL: `http://127.0.0.1:${await freePort()}`,
  };
  const sandbox = await startSandboxProcess({ ...second, ...env });
  return {
    ...sandbox,
    secondRpcUrl: sandbox.env.PAYLINK_SANDBOX_2_RPC_URL!,
    attestationUrl: sandbox.env.PAYLINK_CCTP_ATTESTATION_URL!,
  };
}

async function startSandboxProcess(env: Record<string, string>): Promise<SandboxProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-sandbox-'));
  const [apiPort, checkoutPort, rpcPort, inboxPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PAYLINK_DATABASE_URL: `sqlite:${join(dir, 'data', 'paylink.db')}`,
    PAYLINK_API_PORT: String(apiPort),
    PAYLINK_CHECKOUT_PORT: String(checkoutPort),
    PAYLINK_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    PAYLINK_SANDBOX_WEBHOOK_PORT: String(inboxPort),
    PAYLINK_POLL_INTERVAL: '250ms',
    PAYLINK_LOG_LEVEL: 'info',
    ...env,
  };
  const server: ChildProcess = spawn(process.execPath, [await builtPaylinkBin(), 'serve'], {
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
    rpcUrl: fullEnv.PAYLINK_RPC_URL!,
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
    testApiKey: merchant.testApiKey,
    output: () => output,
    stop,
  };
}
