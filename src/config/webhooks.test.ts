import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../domain/webhookRetry.ts';
import { ConfigError, loadConfig } from './index.ts';

// The webhook variables (kept out of index.test.ts, which belongs to the configuration as a whole).
describe('webhook configuration', () => {
  it('defaults: 15 s timeout, the standard schedule, a lease of one attempt plus a minute; private only on the sandbox', () => {
    const config = loadConfig({});
    expect(config.webhooks).toStrictEqual({
      timeoutMs: 15_000,
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      leaseMs: 75_000,
    });
    expect(config.webhookAllowPrivate).toBe(true);
    expect(loadConfig({ PAYLINK_NETWORK: 'polygon' }).webhookAllowPrivate).toBe(false);
  });

  it('reads PAYLINK_WEBHOOK_TIMEOUT and PAYLINK_WEBHOOK_RETRY_SCHEDULE', () => {
    const config = loadConfig({ PAYLINK_WEBHOOK_TIMEOUT: '5s', PAYLINK_WEBHOOK_RETRY_SCHEDULE: '1s, 1m,1h' });
    expect(config.webhooks).toStrictEqual({
      timeoutMs: 5_000,
      retryScheduleMs: [1_000, 60_000, 3_600_000],
      leaseMs: 65_000,
    });
  });

  it.each([
    ['PAYLINK_WEBHOOK_TIMEOUT', '0'],
    ['PAYLINK_WEBHOOK_TIMEOUT', '2m'],
    ['PAYLINK_WEBHOOK_RETRY_SCHEDULE', ''],
    ['PAYLINK_WEBHOOK_RETRY_SCHEDULE', '5s,never'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
