import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwarderImplementationOf } from '../../src/adapters/chain/depositPlanner.ts';
import { openDatabase } from '../../src/adapters/db/database.ts';
import { hashApiKey } from '../../src/domain/credentials.ts';
import { createStores } from '../../src/main/wiring.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { createEmptyDatabase, dialects } from '../helpers/database.ts';

describe.each(dialects)('paylink CLI on %s', (dialect) => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createEmptyDatabase(dialect);
    drop = database.drop;
    env = { PAYLINK_DATABASE_URL: database.url, PAYLINK_NETWORK: 'polygon' };
  });
  afterAll(() => drop());

  // The bin itself, as a process: the other commands run in the test's process (helpers/cli.ts says why).
  it('migrates, then says the database is up to date', async () => {
    const first = await spawnCli(['migrate'], env);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('0001_initial');
    const second = await spawnCli(['migrate'], env);
    expect(second.stdout).toContain('up to date');
  });

  it('administers a merchant from creation to disabling', async () => {
    const created = await runCli(
      [
        'merchant',
        'create',
        '--name',
        'Corner Shop',
        '--wallet',
        '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
        '--webhook-url',
        'https://corner.example.test/hooks',
        '--commission',
        '1.25',
        '--json',
      ],
      env,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { merchant, api_key, webhook_secret } = JSON.parse(created.stdout);
    expect(api_key).toMatch(/^sk_live_/);
    expect(webhook_secret).toMatch(/^whsec_/);
    expect(merchant).toMatchObject({
      name: 'Corner Shop',
      wallet_address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      commission_bps: 125,
      status: 'active',
    });

    const table = (await runCli(['merchant', 'list'], env)).stdout.split('\n');
    expect(table[0]).toMatch(/^PUBLIC ID\s+STATUS\s+COMMISSION\s+NAME$/);
    expect(table.some((line) => line.startsWith(merchant.public_id) && line.includes('active'))).toBe(true);
    const listed = JSON.parse((await runCli(['merchant', 'list', '--json'], env)).stdout);
    expect(listed.merchants.map((m: { public_id: string }) => m.public_id)).toContain(merchant.public_id);

    const updated = await runCli(
      ['merchant', 'update', merchant.public_id, '--commission', '2', '--tolerance', '0.5', '--json'],
      env,
    );
    expect(JSON.parse(updated.stdout)).toMatchObject({
      commission_bps: 200,
      underpayment_tolerance_percent: '0.5',
      send_receipts: true,
    });
    const quiet = await runCli(
      ['merchant', 'update', merchant.public_id, '--receipts', 'off', '--json'],
      env,
    );
    expect(JSON.parse(quiet.stdout)).toMatchObject({ send_receipts: false });
    const unclear = await runCli(['merchant', 'update', merchant.public_id, '--receipts', 'maybe'], env);
    expect(unclear.code).toBe(2);
    expect(unclear.stderr).toContain('must be on or off');

    const rotated = await runCli(
      ['merchant', 'rotate-key', merchant.public_id, '--grace', '24h', '--json'],
      env,
    );
    const newKey = JSON.parse(rotated.stdout).api_key;
    expect(newKey).toMatch(/^sk_live_/);
    expect(newKey).not.toBe(api_key);

    const shown = await runCli(['merchant', 'show', merchant.public_id], env);
    expect(shown.stdout).toContain('2%');
    expect(shown.stdout).not.toContain('whsec_');

    const disabled = await runCli(['merchant', 'disable', merchant.public_id], env);
    expect(disabled.stdout).toContain('disabled');
    expect(
      JSON.parse((await runCli(['merchant', 'show', merchant.public_id, '--json'], env)).stdout).status,
    ).toBe('disabled');
    const enabled = await runCli(['merchant', 'enable', merchant.public_id, '--json'], env);
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout).status).toBe('active');
    const unknown = await runCli(['merchant', 'enable', 'mch_nope'], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('Merchant not found');
  });

  it('prints the key once in human form too, and refuses bad input with a clear message and exit code 2', async () => {
    const human = await runCli(['merchant', 'create', '--name', 'Human', '--commission', '0'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/API key\s+sk_live_/);
    expect(human.stdout).toContain('(not set: payments cannot be created)');

    const bad = await runCli(
      ['merchant', 'create', '--name', 'Bad', '--wallet', '0x12', '--commission', '1'],
      env,
    );
    expect(bad.code).toBe(2);
    // Named by the flag that was typed, not by the database field.
    expect(bad.stderr).toContain('error: --wallet: must be a 0x-prefixed EVM address');
    expect(bad.stderr).not.toContain('wallet_address');
    expect(bad.stdout).toBe('');
    // Every bad flag at once, each with its problem.
    const twice = await runCli(
      ['merchant', 'create', '--name', 'Bad', '--wallet', '0x12', '--commission', '101'],
      env,
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(
      'error: --wallet: must be a 0x-prefixed EVM address; --commission: must be a percentage from 0 to 100',
    );

    // The service's own contracts are no wallet: the token (Polygon's USDC), the factory, its implementation.
    const factory = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
    const withFactory = { ...env, PAYLINK_FACTORY_ADDRESS: factory };
    const target = JSON.parse(
      (await runCli(['merchant', 'create', '--name', 'Target', '--json'], env)).stdout,
    );
    for (const contract of [
      '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      factory,
      forwarderImplementationOf(factory),
    ]) {
      const refused = await runCli(
        ['merchant', 'create', '--name', 'Bad', '--wallet', contract],
        withFactory,
      );
      expect(refused.code, contract).toBe(2);
      expect(refused.stderr).toContain("error: --wallet: is one of the payment network's contracts");
      const moved = await runCli(
        ['merchant', 'update', target.merchant.public_id, '--wallet', contract],
        withFactory,
      );
      expect(moved.code, contract).toBe(2);
      expect(moved.stderr).toContain("error: --wallet: is one of the payment network's contracts");
    }
    // Nor is a deposit address of one of this deployment's payments.
    const database = openDatabase(env.PAYLINK_DATABASE_URL!);
    const payment = testPayment(1, { merchantId: target.merchant.public_id });
    await createStores(database).payments.insert(payment);
    await database.close();
    const deposit = payment.deposit!.depositAddress;
    const refused = await runCli(['merchant', 'create', '--name', 'Bad', '--wallet', deposit], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: --wallet: is a payment deposit address of this service');
    const moved = await runCli(['merchant', 'update', target.merchant.public_id, '--wallet', deposit], env);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain('error: --wallet: is a payment deposit address of this service');
    const kept = await runCli(['merchant', 'show', target.merchant.public_id, '--json'], env);
    expect(JSON.parse(kept.stdout).wallet_address).toBeNull();

    const unknown = await runCli(['merchant', 'show', 'mch_nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Merchant not found');
  });
});

describe.each(dialects)("paylink merchant's receipt details and restricted keys on %s", (dialect) => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createEmptyDatabase(dialect);
    drop = database.drop;
    env = { PAYLINK_DATABASE_URL: database.url, PAYLINK_NETWORK: 'polygon' };
  });
  afterAll(() => drop());

  it("sets, shows and clears the address and tax id on a merchant's receipts, refusing bad ones by flag", async () => {
    const { merchant } = JSON.parse(
      (await runCli(['merchant', 'create', '--name', 'Roastery', '--json'], env)).stdout,
    );
    const id: string = merchant.public_id;
    const none = await runCli(['merchant', 'receipt-details', id], env);
    expect(none.stdout).toContain('address         (none)');
    const set = await runCli(
      [
        ...['merchant', 'receipt-details', id, '--address-line', 'Oranienstraße 12'],
        ...['--address-line', '10999 Berlin', '--tax-id', ' DE123456789 ', '--json'],
      ],
      env,
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      public_id: id,
      address_lines: ['Oranienstraße 12', '10999 Berlin'],
      tax_id: 'DE123456789',
    });
    // What the receipts read: the brand row the dashboard's brand page also writes.
    const database = openDatabase(env.PAYLINK_DATABASE_URL!);
    try {
      expect(await createStores(database).brands.find(id)).toMatchObject({
        displayName: null,
        address: 'Oranienstraße 12\n10999 Berlin',
        taxId: 'DE123456789',
      });
    } finally {
      await database.close();
    }

    const tooLong = await runCli(['merchant', 'receipt-details', id, '--tax-id', 'D'.repeat(41)], env);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('--tax-id: must be at most 40 characters');
    const lines = Array.from({ length: 7 }, (_, i) => ['--address-line', `line ${i}`]).flat();
    const seven = await runCli(['merchant', 'receipt-details', id, ...lines], env);
    expect(seven.code).toBe(2);
    expect(seven.stderr).toContain('--address-line: must be at most 6 lines');

    const cleared = await runCli(['merchant', 'receipt-details', id, '--clear-address', '--json'], env);
    expect(JSON.parse(cleared.stdout)).toEqual({ public_id: id, address_lines: [], tax_id: 'DE123456789' });
    const unknown = await runCli(['merchant', 'receipt-details', 'mch_nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Merchant not found');
  });

  it('makes, lists and revokes restricted keys with scopes and an expiry, each mode apart', async () => {
    const { merchant } = JSON.parse(
      (await runCli(['merchant', 'create', '--name', 'Plugin shop', '--test-key', '--json'], env)).stdout,
    );
    const id: string = merchant.public_id;
    const made = await runCli(
      [
        ...['merchant', 'key', 'create', id, '--name', 'Shop plugin'],
        ...['--scopes', 'payments:write, payments:read', '--expires-in', '30d', '--json'],
      ],
      env,
    );
    expect(made.code).toBe(0);
    const key = JSON.parse(made.stdout);
    expect(key).toMatchObject({
      name: 'Shop plugin',
      kind: 'restricted',
      scopes: ['payments:read', 'payments:write'],
      livemode: true,
      status: 'active',
    });
    expect(key.key).toMatch(/^rk_live_/);
    const database = openDatabase(env.PAYLINK_DATABASE_URL!);
    const { merchants } = createStores(database);
    try {
      // The key works (its hash alone stored) until the moment it expires, and not at that moment.
      const expiresAt = new Date(key.expires_at);
      const days = (expiresAt.getTime() - Date.parse(key.created_at)) / 86_400_000;
      expect(days).toBe(30);
      const found = await merchants.findByKeyHash(hashApiKey(key.key), new Date(expiresAt.getTime() - 1));
      expect(found?.key.scopes).toEqual(['payments:read', 'payments:write']);
      expect(await merchants.findByKeyHash(hashApiKey(key.key), expiresAt)).toBeUndefined();

      const test = JSON.parse(
        (
          await runCli(
            [
              'merchant',
              'key',
              'create',
              id,
              '--name',
              'Books',
              '--scopes',
              'refunds:read',
              '--mode',
              'test',
              '--json',
            ],
            env,
          )
        ).stdout,
      );
      expect(test.key).toMatch(/^rk_test_/);
      expect(test.expires_at).toBeNull();
      const live = JSON.parse((await runCli(['merchant', 'key', 'list', id, '--json'], env)).stdout);
      expect(live.keys.map((k: { kind: string; name: string | null }) => [k.kind, k.name])).toEqual([
        ['secret', null],
        ['restricted', 'Shop plugin'],
      ]);
      // Never the key itself, nor its hash, in a listing.
      expect(JSON.stringify(live)).not.toContain(key.key);
      const table = await runCli(['merchant', 'key', 'list', id, '--mode', 'test'], env);
      expect(table.stdout).toContain('Books: refunds:read');
      expect(table.stdout).not.toContain('Shop plugin');

      const revoked = await runCli(['merchant', 'key', 'revoke', id, key.id], env);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toContain('status          revoked');
      expect(await merchants.findByKeyHash(hashApiKey(key.key), new Date())).toBeUndefined();
      // A key of the other mode is not found from this one; the secret key is rolled, never revoked.
      expect((await runCli(['merchant', 'key', 'revoke', id, test.id], env)).stderr).toContain(
        'API key not found',
      );
      const secret = live.keys[0].id;
      const refused = await runCli(['merchant', 'key', 'revoke', id, secret], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('The secret key is not revoked but rolled');
    } finally {
      await database.close();
    }

    for (const [args, problem] of [
      [['--scopes', 'payments:delete'], '--scopes: has an unknown scope "payments:delete"'],
      [['--scopes', 'payments:read', '--expires-at', '2020-01-01T00:00:00Z'], '--expires-at:'],
      [['--scopes', 'payments:read', '--expires-in', 'soon'], '--expires-in: must be a duration'],
    ] as const) {
      const bad = await runCli(['merchant', 'key', 'create', id, '--name', 'Bad', ...args], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(problem);
    }
  });
});

describe('paylink CLI configuration', () => {
  it('stops with a message naming the variable when the environment is invalid', async () => {
    const result = await spawnCli(['migrate'], {
      PAYLINK_DATABASE_URL: 'mysql://nope',
      PAYLINK_PAYMENT_TTL: 'soon',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PAYLINK_DATABASE_URL');
    expect(result.stderr).toContain('PAYLINK_PAYMENT_TTL');
  });
});
