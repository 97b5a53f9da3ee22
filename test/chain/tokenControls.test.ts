/**
 * Preflight before selling a link: the token's own blacklist and pause, read from a USDC-like token on anvil,
 * refuse a payment whose money could never reach the merchant — through the real API, the admin API and the CLI.
 * A token without those functions, or a node that does not answer, never blocks anything.
 */
import type { Address } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deployFactory, deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import { createTokenControls } from '../../src/adapters/chain/tokenControls.ts';
import type { TokenControls } from '../../src/app/chain/tokenControls.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { type ApiHarness, startApiHarness } from '../helpers/apiHarness.ts';
import { runCli } from '../helpers/cli.ts';
import { countRows, dialects } from '../helpers/database.ts';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const; // the API harness's merchant wallet
const OTHER_WALLET = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' as const;

let anvil: Anvil;
let usdc: Address;
let notAToken: Address;

beforeAll(async () => {
  anvil = await startAnvil();
  usdc = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
  // A contract with neither isBlacklisted nor paused: stands in for a token without those controls.
  ({ factory: notAToken } = await deployFactory(anvil.wallet(0), anvil.publicClient));
});
afterAll(async () => {
  await anvil?.stop();
});

async function control(
  functionName: 'blacklist' | 'unBlacklist' | 'pause' | 'unpause',
  args: Address[] = [],
) {
  const hash = await anvil.wallet(0).writeContract({
    address: usdc,
    abi: testUsdcAbi,
    functionName,
    args,
  } as Parameters<Anvil['walletClients'][number]['writeContract']>[0]);
  await anvil.publicClient.waitForTransactionReceipt({ hash });
}

describe.each(dialects)('token controls before a sale, on %s', (dialect) => {
  let h: ApiHarness;
  let controls: TokenControls;
  const warnings: string[] = [];
  /** The controls the API asks, read from `token` through `rpcUrls`, cached on the harness's clock. */
  const readFrom = (token: Address, rpcUrls = [anvil.rpcUrl]) => {
    controls = createTokenControls({
      client: createRpcClient(rpcUrls, 1_000),
      token,
      clock: h.clock,
      logger: { warn: (_fields, message) => warnings.push(message) },
    });
  };

  beforeEach(async () => {
    h = await startApiHarness(dialect, {
      overrides: {
        tokenControls: {
          live: { isBlacklisted: (a) => controls.isBlacklisted(a), isPaused: () => controls.isPaused() },
        },
      },
    });
    readFrom(usdc);
  });
  afterEach(() => h.close());

  const create = (apiKey: string) =>
    h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: { amount: 10, currency: 'USD' },
    });
  const paymentCount = () => countRows(h.database.handle.db, 'payments');

  it('refuses a payment to a blacklisted wallet (409) and writes nothing; sells again once un-blacklisted', async () => {
    const { apiKey } = await h.merchant();
    expect((await create(apiKey)).statusCode).toBe(201);
    await control('blacklist', [WALLET]);
    try {
      // Within the cache's 15 s the earlier answer stands; after it, the token's new word.
      expect((await create(apiKey)).statusCode).toBe(201);
      h.clock.advance(15_000);
      const refused = await create(apiKey);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toEqual({
        error:
          "The merchant's payout wallet is blacklisted by the token (USDC): payments to it could not be paid out. Ask the administrator to set another wallet",
        code: 'MERCHANT_WALLET_BLOCKED',
      });
      expect(await paymentCount()).toBe(2);
    } finally {
      await control('unBlacklist', [WALLET]);
    }
    h.clock.advance(15_000);
    expect((await create(apiKey)).statusCode).toBe(201);
  });

  it('refuses while the token is paused (503 TOKEN_PAUSED, Retry-After)', async () => {
    const { apiKey } = await h.merchant();
    await control('pause');
    try {
      const refused = await create(apiKey);
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('60');
      expect(refused.json()).toMatchObject({ code: 'TOKEN_PAUSED' });
      expect(refused.json().error).toContain('paused');
      expect(await paymentCount()).toBe(0);
    } finally {
      await control('unpause');
    }
    h.clock.advance(15_000);
    expect((await create(apiKey)).statusCode).toBe(201);
  });

  it('does not check a token without those functions, nor block when the node does not answer', async () => {
    const { apiKey } = await h.merchant();
    await control('blacklist', [WALLET]);
    try {
      readFrom(notAToken);
      expect((await create(apiKey)).statusCode).toBe(201);
      readFrom(usdc, ['http://127.0.0.1:9']);
      expect((await create(apiKey)).statusCode).toBe(201);
      expect(warnings).toContain('token control unreadable: not checked');
    } finally {
      await control('unBlacklist', [WALLET]);
    }
  });

  it('the admin API refuses to create or move a merchant onto a blacklisted wallet', async () => {
    await control('blacklist', [OTHER_WALLET]);
    try {
      const created = await h.admin('POST', '/admin/api/merchants/', {
        name: 'Blocked Shop',
        wallet_address: OTHER_WALLET,
        webhook_url: 'https://blocked.example.test/hooks',
      });
      expect(created.statusCode).toBe(409);
      expect(created.json()).toEqual({
        error: 'wallet_address is blacklisted by the token (USDC): it could receive no payout',
        code: 'MERCHANT_WALLET_BLOCKED',
        field: 'wallet_address',
      });
      const { id } = await h.merchant();
      const moved = await h.admin('PATCH', `/admin/api/merchants/${id}/`, { wallet_address: OTHER_WALLET });
      expect(moved.statusCode).toBe(409);
      const renamed = await h.admin('PATCH', `/admin/api/merchants/${id}/`, { name: 'Still Fine' });
      expect(renamed.statusCode).toBe(200);
    } finally {
      await control('unBlacklist', [OTHER_WALLET]);
    }
  });

  it('the CLI refuses a blacklisted --wallet too, reading the token named in its configuration', async () => {
    await control('blacklist', [OTHER_WALLET]);
    try {
      const result = await runCli(
        ['merchant', 'create', '--name', 'Blocked Shop', '--wallet', OTHER_WALLET],
        {
          PAYLINK_DATABASE_URL: h.database.url,
          PAYLINK_NETWORK: 'polygon',
          PAYLINK_RPC_URL: anvil.rpcUrl,
          PAYLINK_USDC_ADDRESS: usdc,
        },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('wallet_address is blacklisted by the token (USDC)');
      expect((await h.stores.merchants.list(10)).map((m) => m.name)).not.toContain('Blocked Shop');
    } finally {
      await control('unBlacklist', [OTHER_WALLET]);
    }
  });
});
