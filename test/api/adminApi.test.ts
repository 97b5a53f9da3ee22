import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositPlanner, forwarderImplementationOf } from '../../src/adapters/chain/depositPlanner.ts';
import { hashApiKey } from '../../src/domain/credentials.ts';
import { ADMIN_TOKEN, type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

describe.each(dialects)('admin API on %s', (dialect) => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness(dialect);
  });
  afterAll(() => h.close());

  const convertWith = (key: string) =>
    h.app.inject({
      method: 'GET',
      url: '/payments/api/convert/?amount=1&currency=USD',
      headers: { 'x-api-key': key },
    });

  const newMerchant = async (fields: Record<string, unknown> = {}) => {
    const response = await h.admin('POST', '/admin/api/merchants/', {
      name: 'Shop',
      wallet_address: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      webhook_url: 'https://shop.example.test/hooks',
      commission_percent: 2.5,
      ...fields,
    });
    expect(response.statusCode).toBe(201);
    return response.json();
  };

  it('refuses requests without the admin token, or with a merchant key', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/admin/api/merchants/' })).statusCode).toBe(401);
    expect((await h.admin('GET', '/admin/api/merchants/', undefined, 'wrong-token')).statusCode).toBe(401);
    const { api_key } = await newMerchant();
    const asMerchant = await h.admin('GET', '/admin/api/merchants/', undefined, api_key);
    expect(asMerchant.statusCode).toBe(401);
    expect(asMerchant.json().code).toBe('UNAUTHORIZED');
  });

  it('creates a merchant: key shown once, checksummed wallet, commission in basis points', async () => {
    const created = await newMerchant();
    expect(created.api_key).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(created.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.merchant).toMatchObject({
      public_id: expect.stringMatching(/^mch_[0-9A-Za-z]{22}$/),
      wallet_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      commission_percent: '2.5',
      commission_bps: 250,
      status: 'active',
    });
    // Only the hash is stored.
    const keys = await h.database.handle.db
      .selectFrom('api_keys')
      .select(['key_hash', 'key_prefix'])
      .execute();
    expect(keys.some((k) => k.key_hash === created.api_key)).toBe(false);
    expect(JSON.stringify(keys)).not.toContain(created.api_key.slice(12));
    // Reading it back never shows a secret.
    const shown = await h.admin('GET', `/admin/api/merchants/${created.merchant.public_id}/`);
    expect(shown.json()).toStrictEqual(created.merchant);
    expect(shown.body).not.toContain('whsec_');
    expect((await convertWith(created.api_key)).statusCode).toBe(200);
  });

  it('issues a test-mode key beside the live one when asked, and only then', async () => {
    const both = await newMerchant({ test_key: true });
    expect(both.test_api_key).toMatch(/^sk_test_[0-9A-Za-z]{43}$/);
    expect((await convertWith(both.test_api_key)).statusCode).toBe(200);
    const { db } = h.database.handle;
    const { merchant_id } = await db
      .selectFrom('api_keys')
      .select('merchant_id')
      .where('key_hash', '=', hashApiKey(both.api_key))
      .executeTakeFirstOrThrow();
    const modes = await db
      .selectFrom('api_keys')
      .select('mode')
      .where('merchant_id', '=', merchant_id)
      .orderBy('mode')
      .execute();
    expect(modes.map((k) => k.mode)).toStrictEqual(['live', 'test']);
    expect((await newMerchant()).test_api_key).toBeUndefined();
    expect((await newMerchant({ test_key: false })).test_api_key).toBeUndefined();
  });

  it.each([
    ['test_key', { test_key: 'yes' }],
    ['wallet_address', { wallet_address: '0x123' }],
    ['wallet_address', { wallet_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293bc' }], // bad checksum
    ['wallet_address', { wallet_address: '0x0000000000000000000000000000000000000000' }],
    ['commission_percent', { commission_percent: 100.01 }],
    ['commission_percent', { commission_percent: -1 }],
    ['commission_percent', { commission_percent: '1.234' }],
    ['webhook_url', { webhook_url: 'ftp://shop.example.test' }],
    ['webhook_url', { webhook_url: 'https://user:pw@shop.example.test/' }],
    ['name', { name: '' }],
  ])('refuses a bad %s', async (field, fields) => {
    const before = (await h.admin('GET', '/admin/api/merchants/')).json().merchants.length;
    const response = await h.admin('POST', '/admin/api/merchants/', {
      name: 'Shop',
      wallet_address: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      webhook_url: 'https://shop.example.test/hooks',
      commission_percent: 1,
      ...fields,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field });
    expect(response.json().details).toEqual([{ field, message: expect.any(String) }]);
    expect((await h.admin('GET', '/admin/api/merchants/')).json().merchants.length).toBe(before);
  });

  it('names every bad field at once: in the schema, and in the checks after it', async () => {
    const before = (await h.admin('GET', '/admin/api/merchants/')).json().merchants.length;
    const schema = await h.admin('POST', '/admin/api/merchants/', {
      name: 'Shop',
      wallet_address: 42,
      test_key: 'yes',
    });
    expect(schema.statusCode).toBe(400);
    expect(schema.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'wallet_address' });
    expect(
      schema
        .json()
        .details.map(({ field }: { field: string }) => field)
        .sort(),
    ).toEqual(['test_key', 'wallet_address']);
    const checks = await h.admin('POST', '/admin/api/merchants/', {
      name: 'Shop',
      wallet_address: '0x1234',
      webhook_url: 'ftp://shop.example.test',
      commission_percent: 100.01,
    });
    expect(checks.statusCode).toBe(400);
    expect(checks.json()).toStrictEqual({
      error: '3 fields are invalid: wallet_address, webhook_url, commission_percent',
      code: 'VALIDATION_ERROR',
      field: 'wallet_address',
      details: [
        { field: 'wallet_address', message: 'must be a 0x-prefixed EVM address' },
        { field: 'webhook_url', message: expect.any(String) },
        {
          field: 'commission_percent',
          message: 'must be a percentage from 0 to 100 with at most 2 decimals',
        },
      ],
    });
    expect((await h.admin('GET', '/admin/api/merchants/')).json().merchants.length).toBe(before);
  });

  it('updates, lists and shows merchants', async () => {
    const { merchant } = await newMerchant();
    const updated = await h.admin('PATCH', `/admin/api/merchants/${merchant.public_id}/`, {
      name: 'Renamed',
      commission_percent: '0.75',
      underpayment_tolerance_percent: '0.5',
      webhook_url: null,
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      name: 'Renamed',
      commission_bps: 75,
      underpayment_tolerance_percent: '0.5',
      webhook_url: null,
      wallet_address: merchant.wallet_address,
    });
    const listed = (await h.admin('GET', '/admin/api/merchants/')).json().merchants;
    expect(listed.find((m: { public_id: string }) => m.public_id === merchant.public_id).name).toBe(
      'Renamed',
    );
    expect((await h.admin('GET', '/admin/api/merchants/mch_unknown/')).statusCode).toBe(404);
    expect((await h.admin('PATCH', '/admin/api/merchants/mch_unknown/', { name: 'x' })).statusCode).toBe(404);
  });

  it('sends receipts by default, and stops when told to; anything but a boolean is refused', async () => {
    const { merchant } = await newMerchant();
    expect(merchant.send_receipts).toBe(true);
    const path = `/admin/api/merchants/${merchant.public_id}/`;
    const off = await h.admin('PATCH', path, { send_receipts: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().send_receipts).toBe(false);
    expect((await h.stores.merchants.find(merchant.public_id))!.sendReceipts).toBe(false);
    // Another field changed leaves the setting as it is.
    expect((await h.admin('PATCH', path, { name: 'Still quiet' })).json().send_receipts).toBe(false);
    const refused = await h.admin('PATCH', path, { send_receipts: 'yes' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'send_receipts' });
    expect((await h.admin('GET', path)).json().send_receipts).toBe(false);
  });

  it("sets the address and tax id on a merchant's receipts, each bad one a 400 naming its field", async () => {
    const { merchant } = await newMerchant();
    const path = `/admin/api/merchants/${merchant.public_id}/receipt-details/`;
    const set = await h.admin('PATCH', path, {
      address_lines: [' Oranienstraße 12 ', '', '10999 Berlin'],
      tax_id: 'DE123456789',
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({
      public_id: merchant.public_id,
      address_lines: ['Oranienstraße 12', '10999 Berlin'],
      tax_id: 'DE123456789',
    });
    expect(await h.stores.brands.find(merchant.public_id)).toMatchObject({
      address: 'Oranienstraße 12\n10999 Berlin',
      taxId: 'DE123456789',
    });
    // A field left out stays; null removes.
    expect((await h.admin('PATCH', path, { tax_id: null })).json()).toMatchObject({
      address_lines: ['Oranienstraße 12', '10999 Berlin'],
      tax_id: null,
    });
    for (const [body, field] of [
      [{ address_lines: Array.from({ length: 7 }, (_, i) => `line ${i}`) }, 'address_lines'],
      [{ address_lines: ['x'.repeat(301)] }, 'address_lines'],
      [{ address_lines: ['Main St\n1'] }, 'address_lines[0]'],
      [{ address_lines: 'Main St 1' }, 'address_lines'],
      [{ tax_id: 'D'.repeat(41) }, 'tax_id'],
      [{ tax_id: 'DE\u00001' }, 'tax_id'],
    ] as const) {
      const refused = await h.admin('PATCH', path, body);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'VALIDATION_ERROR', field });
    }
    expect(await h.stores.brands.find(merchant.public_id)).toMatchObject({
      address: 'Oranienstraße 12\n10999 Berlin',
      taxId: null,
    });
    expect((await h.admin('PATCH', '/admin/api/merchants/mch_nope/receipt-details/', {})).statusCode).toBe(
      404,
    );
  });

  it.each([
    ['the token (USDC)', () => TEST_CHAIN.tokenAddress],
    ['the forwarder factory', () => TEST_CHAIN.factoryAddress],
    ['the forwarder implementation', () => forwarderImplementationOf(TEST_CHAIN.factoryAddress)],
    [
      'a payment deposit address (a forwarder)',
      async () => {
        const { apiKey } = await h.merchant();
        const created = await h.app.inject({
          method: 'POST',
          url: '/payments/api/create/',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          payload: { amount: '5', currency: 'USDC' },
        });
        expect(created.statusCode, created.body).toBe(201);
        return created.json().details.deposit_address as string;
      },
    ],
  ])('refuses %s as a wallet, to create and to update, whatever its case', async (_kind, addressOf) => {
    const address = await addressOf();
    const merchant = (await newMerchant()).merchant;
    const before = (await h.admin('GET', '/admin/api/merchants/')).json().merchants.length;
    for (const wallet of [getAddress(address), address.toLowerCase()]) {
      const created = await h.admin('POST', '/admin/api/merchants/', {
        name: 'Shop',
        wallet_address: wallet,
      });
      expect(created.statusCode, wallet).toBe(400);
      expect(created.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'wallet_address' });
      expect(created.json().error).toMatch(/not a wallet/);
      const updated = await h.admin('PATCH', `/admin/api/merchants/${merchant.public_id}/`, {
        wallet_address: wallet,
      });
      expect(updated.statusCode, wallet).toBe(400);
      expect(updated.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'wallet_address' });
    }
    expect((await h.admin('GET', '/admin/api/merchants/')).json().merchants).toHaveLength(before);
    const stored = await h.admin('GET', `/admin/api/merchants/${merchant.public_id}/`);
    expect(stored.json().wallet_address).toBe(merchant.wallet_address);
  });

  it('rotates a key at once, or with a grace period during which both work', async () => {
    const { merchant, api_key: first } = await newMerchant();
    const rotated = await h.admin('POST', `/admin/api/merchants/${merchant.public_id}/rotate-key/`, {
      grace: '1h',
    });
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json().api_key;
    expect(second).not.toBe(first);
    expect((await convertWith(first)).statusCode).toBe(200);
    expect((await convertWith(second)).statusCode).toBe(200);
    h.clock.advance(60 * 60_000 + 1);
    expect((await convertWith(first)).statusCode).toBe(401);
    expect((await convertWith(second)).statusCode).toBe(200);

    const third = (await h.admin('POST', `/admin/api/merchants/${merchant.public_id}/rotate-key/`)).json()
      .api_key;
    expect((await convertWith(second)).statusCode).toBe(401);
    expect((await convertWith(third)).statusCode).toBe(200);
    const badGrace = await h.admin('POST', `/admin/api/merchants/${merchant.public_id}/rotate-key/`, {
      grace: 'soon',
    });
    expect(badGrace.statusCode).toBe(400);
    expect((await convertWith(third)).statusCode).toBe(200);
  });

  it('a rotation never extends a key already expiring sooner', async () => {
    const { merchant, api_key: first } = await newMerchant();
    await h.admin('POST', `/admin/api/merchants/${merchant.public_id}/rotate-key/`, { grace: '10m' });
    await h.admin('POST', `/admin/api/merchants/${merchant.public_id}/rotate-key/`, { grace: '24h' });
    h.clock.advance(10 * 60_000 + 1);
    expect((await convertWith(first)).statusCode).toBe(401);
  });

  it('disabling a merchant stops its keys at once', async () => {
    const { merchant, api_key } = await newMerchant();
    const disabled = await h.admin('POST', `/admin/api/merchants/${merchant.public_id}/disable/`);
    expect(disabled.json().status).toBe('disabled');
    const response = await convertWith(api_key);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toStrictEqual({ error: 'Invalid or missing API key', code: 'UNAUTHORIZED' });
  });
});

describe('a merchant wallet on a deployment with a test chain', () => {
  const TEST_MODE_CHAIN = {
    ...TEST_CHAIN,
    chainId: 80002,
    tokenAddress: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
    factoryAddress: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  } as const;
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness('sqlite', {
      overrides: { deposits: { live: depositPlanner(TEST_CHAIN), test: depositPlanner(TEST_MODE_CHAIN) } },
    });
  });
  afterAll(() => h?.close());

  it("is none of the test chain's contracts either", async () => {
    for (const wallet of [
      TEST_MODE_CHAIN.tokenAddress,
      TEST_MODE_CHAIN.factoryAddress,
      forwarderImplementationOf(TEST_MODE_CHAIN.factoryAddress),
    ]) {
      const created = await h.admin('POST', '/admin/api/merchants/', {
        name: 'Shop',
        wallet_address: wallet,
      });
      expect(created.statusCode, wallet).toBe(400);
      expect(created.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'wallet_address' });
    }
    const fine = await h.admin('POST', '/admin/api/merchants/', {
      name: 'Shop',
      wallet_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    });
    expect(fine.statusCode).toBe(201);
  });
});

describe('admin API without PAYLINK_ADMIN_TOKEN', () => {
  it('is off', async () => {
    const h = await startApiHarness('sqlite', { env: { PAYLINK_ADMIN_TOKEN: '' } });
    try {
      const response = await h.app.inject({
        method: 'GET',
        url: '/admin/api/merchants/',
        headers: { authorization: 'Bearer ' },
      });
      expect(response.statusCode).toBe(404);
    } finally {
      await h.close();
    }
  });
});

describe.each(dialects)('admin API guessing on %s', (dialect) => {
  let h: ApiHarness;
  beforeAll(async () => {
    // As in production: unauthenticated requests limited per address (10/s, bursts of 20).
    h = await startApiHarness(dialect, { env: { PAYLINK_RATE_LIMIT_IP: '10/s' } });
  });
  afterAll(() => h.close());

  it('limits wrong admin tokens per address (429 with Retry-After) but never the admin', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      const response = await h.app.inject({
        method: 'GET',
        url: '/admin/api/merchants/',
        headers: { authorization: `Bearer wrong-admin-token-${i.toString().padStart(12, '0')}` },
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429)
        expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // The test clock stands still: the burst of 20 is all a guesser gets.
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(280);
    const asAdmin = await h.admin('GET', '/admin/api/merchants/');
    expect(asAdmin.statusCode).toBe(200);
  });
});

describe.each(dialects)('underpayment tolerance on %s', (dialect) => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness(dialect);
  });
  afterAll(() => h.close());

  it('is at most 10 %: a tolerance of 100 % would make 0.000001 USDC pay any price', async () => {
    const { id } = await h.merchant();
    const set = (percent: string) =>
      h.admin('PATCH', `/admin/api/merchants/${id}/`, { underpayment_tolerance_percent: percent });
    for (const percent of ['100', '10.01', '50']) {
      const refused = await set(percent);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        field: 'underpayment_tolerance_percent',
        error: 'underpayment_tolerance_percent: must be at most 10 (percent of the amount due)',
      });
    }
    expect((await h.stores.merchants.find(id))!.underpaymentToleranceBps).toBe(0);
    const accepted = await set('10');
    expect(accepted.statusCode).toBe(200);
    expect((await h.stores.merchants.find(id))!.underpaymentToleranceBps).toBe(1_000);
  });
});

describe.each(dialects)('the deployment’s default tolerance on %s', (dialect) => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness(dialect, { env: { PAYLINK_DEFAULT_TOLERANCE: '1.5' } });
  });
  afterAll(() => h.close());

  const create = (extra: Record<string, string>) =>
    h.admin('POST', '/admin/api/merchants/', {
      name: 'Exchange-friendly Shop',
      wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      webhook_url: 'https://shop.example/hooks',
      commission_percent: '1',
      ...extra,
    });

  it('applies PAYLINK_DEFAULT_TOLERANCE to a new merchant given none; one given wins', async () => {
    const defaulted = await create({});
    expect(defaulted.statusCode).toBe(201);
    expect(defaulted.json().merchant.underpayment_tolerance_percent).toBe('1.5');
    const explicit = await create({ underpayment_tolerance_percent: '0' });
    expect(explicit.statusCode).toBe(201);
    expect(explicit.json().merchant.underpayment_tolerance_percent).toBe('0');
  });
});

describe.each(dialects)('text fields on %s', (dialect) => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness(dialect);
  });
  afterAll(() => h.close());

  const send = (
    method: 'POST' | 'PATCH' | 'GET',
    url: string,
    payload?: unknown,
    auth = `Bearer ${ADMIN_TOKEN}`,
  ) =>
    h.app.inject({
      method,
      url,
      headers: {
        authorization: auth,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  it('refuses a control character in any text field with 400 naming it, and stores nothing (NUL was a 500 on PostgreSQL)', async () => {
    const before = (await h.stores.merchants.list(100)).length;
    for (const [name, field] of [
      ['Shop\u0000', 'name'],
      ['Shop\u001b[31m', 'name'],
      ['Shop\u0085', 'name'],
      ['Shop\ud800', 'name'],
    ] as const) {
      const response = await send('POST', '/admin/api/merchants/', {
        name,
        wallet_address: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
        webhook_url: 'https://shop.example.test/hooks',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field });
      expect(response.json().error).toMatch(
        /^name: must (not contain control characters|be valid Unicode text)$/,
      );
    }
    expect((await h.stores.merchants.list(100)).length).toBe(before);

    const { id, apiKey } = await h.merchant();
    const patch = await send('PATCH', `/admin/api/merchants/${id}/`, {
      webhook_url: 'https://a.example/\u0000',
    });
    expect(patch.statusCode).toBe(400);
    expect(patch.json()).toMatchObject({ field: 'webhook_url' });
    const created = await send(
      'POST',
      '/payments/api/create/',
      { amount: 1, currency: 'USD', customer_email: 'ann\u0000@example.com', nested: { note: 'x\u0007' } },
      `Bearer ${apiKey}`,
    );
    expect(created.statusCode).toBe(400);
    expect(created.json()).toMatchObject({ field: 'customer_email' });
    const query = await send(
      'GET',
      '/payments/api/convert/?amount=1&currency=US%00D',
      undefined,
      `Bearer ${apiKey}`,
    );
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'currency' });
    // In a parameter's name, or in one of a repeated parameter's values: the query, or that parameter, named.
    const key = await send(
      'GET',
      '/payments/api/convert/?amount=1&currency=USD&x%1b=1',
      undefined,
      `Bearer ${apiKey}`,
    );
    expect(key.statusCode).toBe(400);
    expect(key.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'query' });
    const repeated = await send(
      'GET',
      '/payments/api/convert/?amount=1&currency=USD&currency=U%7fSD',
      undefined,
      `Bearer ${apiKey}`,
    );
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'currency[1]' });
    const path = await send('GET', '/payments/api/status/%01/', undefined, `Bearer ${apiKey}`);
    expect(path.statusCode).toBe(400);
    expect(path.json()).toMatchObject({ field: 'payment_id' });
  });
});
