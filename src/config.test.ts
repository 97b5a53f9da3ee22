import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('defaults to the sandbox on SQLite with static rates', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: 'sqlite:./data/paylink.db',
      apiPort: 3000,
      checkoutPort: 3001,
      baseUrl: 'http://127.0.0.1:3000',
      checkoutUrl: 'http://127.0.0.1:3001',
      network: 'sandbox',
      paymentTtlMs: 3_600_000,
      maxAmountBaseUnits: 1_000_000_000_000n,
      adminToken: undefined,
    });
    expect(config.rates.sources[0]).toMatchObject({ kind: 'static' });
    expect(Object.isFrozen(config.rates)).toBe(true);
  });

  it('uses the market sources off the sandbox and reads every variable', () => {
    const config = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_DATABASE_URL: 'postgres://u@db/paylink',
      PAYLINK_PAYMENT_TTL: '15m',
      PAYLINK_MAX_AMOUNT: '2500.5',
      PAYLINK_CHECKOUT_URL: 'https://pay.example.com/',
      PAYLINK_RATES_COINBASE_URL: 'http://127.0.0.1:9/',
    });
    expect(config.rates.sources).toStrictEqual([
      { kind: 'coinbase', baseUrl: 'http://127.0.0.1:9' },
      { kind: 'coingecko', baseUrl: 'https://api.coingecko.com' },
    ]);
    expect(config.paymentTtlMs).toBe(900_000);
    expect(config.maxAmountBaseUnits).toBe(2_500_500_000n);
    expect(config.checkoutUrl).toBe('https://pay.example.com');
  });

  it.each([
    ['PAYLINK_DATABASE_URL', 'mysql://x'],
    ['PAYLINK_API_PORT', '70000'],
    ['PAYLINK_NETWORK', 'mainnet'],
    ['PAYLINK_PAYMENT_TTL', 'forever'],
    ['PAYLINK_MAX_AMOUNT', '-1'],
    ['PAYLINK_MIN_AMOUNT', '0'],
    ['PAYLINK_MIN_AMOUNT', '0.0000001'],
    ['PAYLINK_MIN_AMOUNT', 'half'],
    ['PAYLINK_RATES', 'static:EUR=abc'],
    ['PAYLINK_RATES', 'bloomberg'],
    ['PAYLINK_ADMIN_TOKEN', 'short'],
    ['PAYLINK_WEBHOOK_ALLOW_PRIVATE', 'yes'],
    ['PAYLINK_CHECKOUT_URL', 'ftp://pay'],
  ])('stops on a bad %s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('reads PAYLINK_MIN_AMOUNT as exact USDC (default 0.50), never above PAYLINK_MAX_AMOUNT', () => {
    expect(loadConfig({}).minAmountBaseUnits).toBe(500_000n);
    expect(loadConfig({ PAYLINK_MIN_AMOUNT: '0.000001' }).minAmountBaseUnits).toBe(1n);
    expect(loadConfig({ PAYLINK_MIN_AMOUNT: '2.1' }).minAmountBaseUnits).toBe(2_100_000n);
    expect(loadConfig({ PAYLINK_MIN_AMOUNT: '5', PAYLINK_MAX_AMOUNT: '5' }).minAmountBaseUnits).toBe(
      5_000_000n,
    );
    expect(() => loadConfig({ PAYLINK_MIN_AMOUNT: '5.000001', PAYLINK_MAX_AMOUNT: '5' })).toThrow(
      'PAYLINK_MIN_AMOUNT must not be above PAYLINK_MAX_AMOUNT',
    );
  });

  it.each([
    'PAYLINK_PAYMENT_TTL',
    'PAYLINK_REFUND_CLAIM_TTL',
    'PAYLINK_RATES_TIMEOUT',
    'PAYLINK_WEBHOOK_TIMEOUT',
    'PAYLINK_WEBHOOK_RETRY_SCHEDULE',
    'PAYLINK_REQUEST_TIMEOUT',
    'PAYLINK_AUTH_CACHE_TTL',
    'PAYLINK_POLL_INTERVAL',
    'PAYLINK_PAYOUT_DELAYED_AFTER',
  ])('refuses %s given as a number without a unit, naming the units it takes', (name) => {
    const load = () => loadConfig({ [name]: name === 'PAYLINK_WEBHOOK_RETRY_SCHEDULE' ? '5s,60' : '60' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(name);
    expect(load).toThrow('ms, s, m, h or d');
  });

  it('still reads a duration with its unit, milliseconds included, and an auth cache of 0', () => {
    expect(loadConfig({ PAYLINK_PAYMENT_TTL: '60s' }).paymentTtlMs).toBe(60_000);
    expect(loadConfig({ PAYLINK_PAYMENT_TTL: '60000ms' }).paymentTtlMs).toBe(60_000);
    expect(loadConfig({ PAYLINK_AUTH_CACHE_TTL: '0' }).authCacheTtlMs).toBe(0);
  });

  it('never echoes a secret value in its error', () => {
    expect(() => loadConfig({ PAYLINK_ADMIN_TOKEN: 'tooshort' })).not.toThrow(/tooshort/);
  });
});

describe('the test-mode chain', () => {
  it('is the sandbox chain itself on the sandbox, and off elsewhere by default', () => {
    const sandbox = loadConfig({ PAYLINK_RELAYER_KEY: `0x${'11'.repeat(32)}` });
    expect(sandbox.testChain).toMatchObject({
      network: 'sandbox',
      chainId: 31337,
      rpcUrls: sandbox.chain.rpcUrls,
      relayerKey: sandbox.chain.relayerKey,
    });
    expect(loadConfig({ PAYLINK_NETWORK: 'polygon' }).testChain).toBeUndefined();
    expect(loadConfig({ PAYLINK_TEST_NETWORK: 'off' }).testChain).toBeUndefined();
  });

  it('reads its own settings on another network, with the preset USDC and nothing live borrowed', () => {
    const config = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_RPC_URL: 'https://polygon.example',
      PAYLINK_FACTORY_ADDRESS: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
      PAYLINK_RELAYER_KEY: `0x${'11'.repeat(32)}`,
      PAYLINK_START_BLOCK: '5000000',
      PAYLINK_TEST_NETWORK: 'amoy',
      PAYLINK_TEST_RPC_URL: 'https://amoy.example, https://amoy2.example',
      PAYLINK_TEST_FACTORY_ADDRESS: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    });
    expect(config.testChain).toMatchObject({
      network: 'amoy',
      chainId: 80002,
      rpcUrls: ['https://amoy.example', 'https://amoy2.example'],
      usdcAddress: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
      factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      treasuryAddress: undefined,
      relayerKey: undefined,
      startBlock: undefined,
    });
    expect(config.chain.chainId).toBe(137);
  });

  it('refuses a bad value naming the variable, without echoing a key', () => {
    expect(() => loadConfig({ PAYLINK_TEST_NETWORK: 'polygon' })).toThrow(/PAYLINK_TEST_NETWORK/);
    expect(() => loadConfig({ PAYLINK_TEST_RPC_URL: 'ftp://x' })).toThrow(/PAYLINK_TEST_RPC_URL/);
    const secret = `0x${'zz'.repeat(32)}`;
    try {
      loadConfig({ PAYLINK_TEST_RELAYER_KEY: secret });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(String(error)).toContain('PAYLINK_TEST_RELAYER_KEY');
      expect(String(error)).not.toContain(secret);
    }
  });
});

describe('PAYLINK_PUBLIC_RPC_URL', () => {
  it("overrides the network preset's public RPC, for the wallet button only", () => {
    expect(loadConfig({ PAYLINK_NETWORK: 'polygon' }).chain.publicRpcUrl).toBe('https://polygon-rpc.com');
    const config = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_RPC_URL: 'https://polygon.provider.example/v2/secret-key',
      PAYLINK_PUBLIC_RPC_URL: 'https://rpc.pay.example.com/',
    });
    expect(config.chain.publicRpcUrl).toBe('https://rpc.pay.example.com');
    expect(config.chain.rpcUrls).toEqual(['https://polygon.provider.example/v2/secret-key']);
    // Another test network keeps its own preset.
    const withAmoy = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_TEST_NETWORK: 'amoy',
      PAYLINK_PUBLIC_RPC_URL: 'https://rpc.pay.example.com',
    });
    expect(withAmoy.testChain?.publicRpcUrl).toBe('https://rpc-amoy.polygon.technology');
    // The sandbox has none unless told (the service offers its own node), and then both modes share it.
    expect(loadConfig({}).chain.publicRpcUrl).toBeUndefined();
    const sandbox = loadConfig({ PAYLINK_PUBLIC_RPC_URL: 'http://192.168.1.5:8545' });
    expect(sandbox.chain.publicRpcUrl).toBe('http://192.168.1.5:8545');
    expect(sandbox.testChain?.publicRpcUrl).toBe('http://192.168.1.5:8545');
  });

  it('takes http only on the sandbox or a loopback host', () => {
    expect(
      loadConfig({ PAYLINK_NETWORK: 'amoy', PAYLINK_PUBLIC_RPC_URL: 'http://127.0.0.1:8545' }).chain
        .publicRpcUrl,
    ).toBe('http://127.0.0.1:8545');
    expect(
      loadConfig({ PAYLINK_NETWORK: 'amoy', PAYLINK_PUBLIC_RPC_URL: 'http://localhost:8545' }).chain
        .publicRpcUrl,
    ).toBe('http://localhost:8545');
  });

  it.each([
    ['polygon', 'http://rpc.example.com'],
    ['polygon', 'ftp://rpc.example.com'],
    ['polygon', 'wss://rpc.example.com'],
    ['polygon', 'not a url'],
    ['sandbox', 'https://user:hunter2@rpc.example.com'],
  ])('stops on %s with %s, naming it and never echoing it', (network, value) => {
    const load = () => loadConfig({ PAYLINK_NETWORK: network, PAYLINK_PUBLIC_RPC_URL: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow('PAYLINK_PUBLIC_RPC_URL');
    expect(load).not.toThrow(/hunter2/);
  });
});

describe('gasless payment settings', () => {
  const key = `0x${'22'.repeat(32)}`;
  it('is on by default with a 5 POL hourly cap, and off with PAYLINK_GASLESS=off', () => {
    expect(loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: key }).chain.gasless).toEqual({
      enabled: true,
      relayerKey: key,
      maxFeeWeiPerHour: 5n * 10n ** 18n,
    });
    expect(loadConfig({ PAYLINK_GASLESS: 'off' }).chain.gasless.enabled).toBe(false);
    expect(loadConfig({ PAYLINK_GASLESS_MAX_FEE_PER_HOUR: '0.25' }).chain.gasless.maxFeeWeiPerHour).toBe(
      25n * 10n ** 16n,
    );
  });

  it('lends the key to a test chain only when it is the live network', () => {
    const sandbox = loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: key });
    expect(sandbox.testChain?.gasless.relayerKey).toBe(key);
    const polygon = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_GASLESS_RELAYER_KEY: key,
      PAYLINK_TEST_NETWORK: 'amoy',
    });
    expect(polygon.testChain?.gasless.relayerKey).toBeUndefined();
  });

  it('refuses a bad value naming the variable, without echoing a key', () => {
    expect(() => loadConfig({ PAYLINK_GASLESS: 'maybe' })).toThrow(/PAYLINK_GASLESS/);
    expect(() => loadConfig({ PAYLINK_GASLESS_MAX_FEE_PER_HOUR: '1e3' })).toThrow(
      /PAYLINK_GASLESS_MAX_FEE_PER_HOUR/,
    );
    expect(() => loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: '0xdeadbeef' })).toThrow(
      /PAYLINK_GASLESS_RELAYER_KEY/,
    );
    expect(() => loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: '0xdeadbeef' })).not.toThrow(/deadbeef/);
  });
});

describe('PAYLINK_DEFAULT_TOLERANCE', () => {
  it('is a percentage up to the 10 % bound, 0 by default', () => {
    expect(loadConfig({}).defaultToleranceBps).toBe(0);
    expect(loadConfig({ PAYLINK_DEFAULT_TOLERANCE: '1.5' }).defaultToleranceBps).toBe(150);
    expect(loadConfig({ PAYLINK_DEFAULT_TOLERANCE: '10' }).defaultToleranceBps).toBe(1_000);
    for (const bad of ['10.01', '-1', 'one', '1.234'])
      expect(() => loadConfig({ PAYLINK_DEFAULT_TOLERANCE: bad })).toThrow(
        /PAYLINK_DEFAULT_TOLERANCE must be/,
      );
  });
});
