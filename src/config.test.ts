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
    ['PAYLINK_RATES', 'static:EUR=abc'],
    ['PAYLINK_RATES', 'bloomberg'],
    ['PAYLINK_ADMIN_TOKEN', 'short'],
    ['PAYLINK_WEBHOOK_ALLOW_PRIVATE', 'yes'],
    ['PAYLINK_CHECKOUT_URL', 'ftp://pay'],
  ])('stops on a bad %s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('never echoes a secret value in its error', () => {
    expect(() => loadConfig({ PAYLINK_ADMIN_TOKEN: 'tooshort' })).not.toThrow(/tooshort/);
  });
});
