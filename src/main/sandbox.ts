import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMerchant, type MerchantAdminDeps, rotateApiKey } from '../app/merchants/merchantAdmin.ts';
import { hashApiKey } from '../domain/credentials.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount } from './sandboxChain.ts';

export interface SandboxCredentials {
  readonly merchantId: string;
  readonly apiKey: string;
  /** Its test-mode key: on the sandbox both modes take payments on the same local chain. */
  readonly testApiKey?: string | undefined;
}

/**
 * The sandbox's demo merchant. Its key is kept in a 0600 file in the state directory so `npm start` can
 * print it on every start — a convenience for the sandbox only; real keys are shown once and never stored.
 */
export async function ensureDemoMerchant(
  deps: MerchantAdminDeps,
  stateDir: string,
  webhookUrl: string,
): Promise<SandboxCredentials> {
  const file = join(stateDir, 'sandbox-merchant.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as SandboxCredentials;
    const merchant = await deps.merchants.find(saved.merchantId);
    if (merchant?.status === 'active') {
      const works = async (key: string | undefined) =>
        key !== undefined &&
        (await deps.merchants.findByKeyHash(hashApiKey(key), deps.clock.now())) !== undefined;
      const liveWorks = await works(saved.apiKey);
      const testWorks = await works(saved.testApiKey);
      if (liveWorks && testWorks) return saved;
      // Each key is reissued on its own (a file from before test mode has no test key).
      const apiKey = liveWorks ? saved.apiKey : (await rotateApiKey(deps, merchant.id, 0)).apiKey;
      const testApiKey = testWorks
        ? saved.testApiKey
        : (await rotateApiKey(deps, merchant.id, 0, 'test')).apiKey;
      return save(file, { merchantId: merchant.id, apiKey, testApiKey });
    }
  }
  const { merchant, apiKey, testApiKey } = await createMerchant(
    deps,
    {
      name: 'Demo Shop',
      wallet: sandboxAccount(SANDBOX_ACCOUNTS.merchant).address,
      webhookUrl,
      commissionPercent: '1',
    },
    { testKey: true },
  );
  return save(file, { merchantId: merchant.id, apiKey, testApiKey });
}

function save(file: string, credentials: SandboxCredentials): SandboxCredentials {
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return credentials;
}
