import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAYLINK_BIN, runCli } from './cli.ts';
import { eventually, freePort } from './net.ts';

export interface PaylinkSandbox {
  readonly apiUrl: string;
  readonly checkoutUrl: string;
  readonly rpcUrl: string;
  readonly apiKey: string;
  /** The demo merchant's test-mode key (`sk_test_`): on the sandbox it pays on the same chain. */
  readonly testApiKey: string;
  readonly merchantId: string;
  /** The demo merchant's webhook secret, issued afresh for the test. */
  readonly webhookSecret: string;
  /** The environment `paylink` commands (`sandbox pay`) take to reach this sandbox. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

/** `paylink serve` as a newcomer runs it: the sandbox with its own anvil chain, API, checkout and worker. */
export async function startPaylinkSandbox(extraEnv: Record<string, string> = {}): Promise<PaylinkSandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-sandbox-'));
  const [apiPort, checkoutPort, rpcPort, inboxPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = {
    PATH: process.env.PATH ?? '',
    PAYLINK_DATABASE_URL: `sqlite:${join(dir, 'data', 'paylink.db')}`,
    PAYLINK_API_PORT: String(apiPort),
    PAYLINK_CHECKOUT_PORT: String(checkoutPort),
    PAYLINK_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    PAYLINK_SANDBOX_WEBHOOK_PORT: String(inboxPort),
    PAYLINK_POLL_INTERVAL: '250ms',
    PAYLINK_LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const server: ChildProcess = spawn(process.execPath, [PAYLINK_BIN, 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  server.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (server.exitCode !== null) throw new Error(`paylink serve exited (${server.exitCode}): ${output}`);
        return output;
      },
      (text) => text.includes('API key'),
    );
    const saved = JSON.parse(readFileSync(join(dir, 'data', 'sandbox-merchant.json'), 'utf8')) as {
      merchantId: string;
      apiKey: string;
      testApiKey: string;
    };
    const rotated = await runCli(
      ['merchant', 'rotate-webhook-secret', saved.merchantId, '--overlap', '0', '--json'],
      env,
    );
    if (rotated.code !== 0) throw new Error(`rotate-webhook-secret: ${rotated.stderr}`);
    return {
      apiUrl: `http://127.0.0.1:${apiPort}`,
      checkoutUrl: `http://127.0.0.1:${checkoutPort}`,
      rpcUrl: env.PAYLINK_RPC_URL,
      apiKey: saved.apiKey,
      testApiKey: saved.testApiKey,
      merchantId: saved.merchantId,
      webhookSecret: (JSON.parse(rotated.stdout) as { webhook_secret: string }).webhook_secret,
      env,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
