import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setPassword } from '../app/dashboard/signIn.ts';
import { createUser, resetPassword, type UserAdminDeps } from '../app/dashboard/users.ts';
import { createMerchant, type MerchantAdminDeps, rotateApiKey } from '../app/merchants/merchantAdmin.ts';
import { hashApiKey } from '../domain/credentials.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount } from './chain.ts';

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

/** The demo merchant this state directory made, if it made one yet. */
export function readSandboxMerchantId(stateDir: string): string | undefined {
  const file = join(stateDir, 'sandbox-merchant.json');
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as SandboxCredentials).merchantId
    : undefined;
}

function save(file: string, credentials: SandboxCredentials): SandboxCredentials {
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return credentials;
}

export interface SandboxUsers {
  readonly operator: { readonly email: string; readonly password: string };
  readonly merchant: { readonly email: string; readonly password: string };
}

/**
 * The sandbox's demo dashboard users, an operator and a user of the demo merchant, made as an operator would
 * (a one-time link, used at once to set a random password). Their passwords are kept in a 0600 file so `npm
 * start` can print them — the sandbox only; real passwords are chosen by their owners and never stored.
 */
export async function ensureDemoUsers(
  deps: UserAdminDeps & Parameters<typeof setPassword>[0],
  stateDir: string,
  merchantId: string,
): Promise<SandboxUsers> {
  const file = join(stateDir, 'sandbox-users.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as SandboxUsers;
    const operator = await deps.users.findByEmail(saved.operator.email);
    const merchant = await deps.users.findByEmail(saved.merchant.email);
    if (operator?.passwordHash && merchant?.passwordHash && merchant.merchantId === merchantId) return saved;
  }
  const make = async (email: string, role: 'operator' | 'merchant') => {
    const existing = await deps.users.findByEmail(email);
    const password = randomBytes(12).toString('base64url');
    const { token } = existing
      ? await resetPassword(deps, existing.id)
      : await createUser(deps, { email, role, merchantId: role === 'merchant' ? merchantId : undefined });
    await setPassword(deps, token, password);
    return { email, password };
  };
  const users = {
    operator: await make('operator@sandbox.paylink.test', 'operator'),
    merchant: await make(`shop-${merchantId.slice(-6).toLowerCase()}@sandbox.paylink.test`, 'merchant'),
  };
  writeFileSync(file, `${JSON.stringify(users, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return users;
}
