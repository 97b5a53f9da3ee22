import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../../test/helpers/logCapture.ts';

describe('logger', () => {
  it('redacts secrets wherever a log line puts them', () => {
    const { logger, text } = capturingLogger();
    logger.info({ apiKey: 'sk_live_SECRET1', merchant: { webhook_secret: 'whsec_SECRET2' } }, 'one');
    logger.info(
      { req: { headers: { authorization: 'Bearer sk_live_SECRET3', 'x-api-key': 'sk_live_SECRET4' } } },
      'two',
    );
    logger.info({ relayerKey: '0xSECRET5', config: { adminToken: 'SECRET6' } }, 'three');
    logger
      .child({ api_key: 'sk_test_SECRET7' })
      .info({ note: 'kept', nested: { webhookSecret: 'SECRET8' } }, 'four');
    const logs = text();
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) expect(logs).not.toContain(`SECRET${n}`);
    const four = JSON.parse(logs.trim().split('\n').at(-1)!);
    expect(four).toMatchObject({
      api_key: '[redacted]',
      note: 'kept',
      nested: { webhookSecret: '[redacted]' },
    });
  });
});
