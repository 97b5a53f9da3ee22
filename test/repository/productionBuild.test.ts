import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContracts } from '../../src/adapters/chain/contracts.ts';
import { deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import { deploySandboxContracts } from '../../src/sandbox/chain.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { builtPaylinkBin } from '../helpers/builtCli.ts';
import { eventually, freePort } from '../helpers/net.ts';

/** Refuses tsx, solc, anvil, the browser driver …: what `npm ci --omit=dev` leaves out. */
const WITHOUT_DEV = fileURLToPath(new URL('../fixtures/withoutDevDependencies.mjs', import.meta.url));
const run = promisify(execFile);

/** `paylink <args>` as production runs it: the built bin, no development package reachable, so dist/ it is. */
async function production(args: string[], env: Record<string, string>) {
  return run(process.execPath, ['--import', WITHOUT_DEV, await builtPaylinkBin(), ...args], {
    env: { PATH: process.env.PATH ?? '', PAYLINK_LOG_LEVEL: 'warn', ...env },
  });
}

// A real build (tsc) and real processes: a safety net, not a speed limit.
describe('the production build', { timeout: 180_000 }, () => {
  let anvil: Anvil;
  let built: string;
  let dir: string;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    // The build every test that starts `paylink` runs (scripts/build.ts --no-type-check, made once per sources).
    built = join(dirname(await builtPaylinkBin()), '..', 'dist');
    anvil = await startAnvil();
    dir = mkdtempSync(join(tmpdir(), 'paylink-production-'));
  }, 180_000);

  afterAll(async () => {
    server?.kill('SIGKILL');
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ships the contracts compiled from the sources: ABI and bytecode', async () => {
    const shipped = JSON.parse(
      readFileSync(join(built, 'adapters/chain/artifacts/contracts.json'), 'utf8'),
    ).contracts;
    // loadContracts() checks its cache against a hash of the Solidity sources and recompiles when they differ.
    expect(shipped).toEqual(await loadContracts());
  });

  it('refuses to run with a development package, so the checks below mean something', async () => {
    const loaded = run(process.execPath, ['--import', WITHOUT_DEV, '-e', "await import('solc')"], {});
    await expect(loaded).rejects.toThrow(/development-only package in production: solc/);
  });

  it('deploys the factory from the built artifacts, with no compiler', async () => {
    // The version 3 factory's table names the chain's USDC (decision 0038).
    const usdc = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
    const { stdout } = await production(['contracts', 'deploy', '--json'], {
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_USDC_ADDRESS: usdc,
      PAYLINK_RPC_URL: anvil.rpcUrl,
      PAYLINK_RELAYER_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
      PAYLINK_DATABASE_URL: 'sqlite::memory:',
    });
    const { factory } = JSON.parse(stdout);
    const code = await anvil.publicClient.getCode({ address: factory });
    expect(code?.length).toBeGreaterThan(2);
  });

  it('migrates, creates a merchant and serves the API, which creates a payment', async () => {
    const { usdc, factory } = await deploySandboxContracts(anvil.rpcUrl);
    const port = await freePort();
    const env = {
      PAYLINK_DATABASE_URL: `sqlite:${join(dir, 'paylink.db')}`,
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_RPC_URL: anvil.rpcUrl,
      PAYLINK_USDC_ADDRESS: usdc,
      PAYLINK_FACTORY_ADDRESS: factory,
      PAYLINK_API_PORT: String(port),
      PAYLINK_CHECKOUT_PORT: String(await freePort()),
      PAYLINK_SANDBOX_WEBHOOK_PORT: String(await freePort()),
      PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    expect((await production(['migrate'], env)).stdout).toContain('0001_initial');
    const created = await production(
      [
        'merchant',
        'create',
        '--name',
        'Built Shop',
        '--wallet',
        anvil.addresses[1]!,
        '--webhook-url',
        'http://127.0.0.1:9/hooks',
        '--json',
      ],
      env,
    );
    const { api_key: apiKey } = JSON.parse(created.stdout);

    server = spawn(
      process.execPath,
      ['--import', WITHOUT_DEV, await builtPaylinkBin(), 'serve', '--role', 'api'],
      {
        env: { PATH: process.env.PATH ?? '', PAYLINK_LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let errors = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const live = await eventually(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 200 || server?.exitCode !== null,
    );
    expect(live, errors).toBe(200);
    const payment = await fetch(`http://127.0.0.1:${port}/payments/api/create/`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '12.50', currency: 'USDC' }),
    });
    expect(payment.status).toBe(201);
    const body = (await payment.json()) as { details: { deposit_address: string } };
    expect(body.details.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });
});
