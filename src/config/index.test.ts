import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './index.ts';

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
