import { describe, expect, it } from 'vitest';
import { skippedPartsNotice } from './skippedParts.ts';

describe('the notice of skipped parts of the suite', () => {
  it('names each variable missing and what it skips; nothing when both are set', () => {
    const none = skippedPartsNotice({});
    expect(none).toContain('PAYLINK_TEST_DATABASE_URL is not set: every database test runs on SQLite only');
    expect(none).toContain('PAYLINK_TEST_REDIS_URL is not set');
    const redisOnly = skippedPartsNotice({ PAYLINK_TEST_DATABASE_URL: 'postgres://x' });
    expect(redisOnly).not.toContain('PAYLINK_TEST_DATABASE_URL is not set');
    expect(redisOnly).toContain('PAYLINK_TEST_REDIS_URL is not set');
    expect(
      skippedPartsNotice({ PAYLINK_TEST_DATABASE_URL: 'postgres://x', PAYLINK_TEST_REDIS_URL: 'redis://y' }),
    ).toBeUndefined();
  });
});
