import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../../../test/helpers/logCapture.ts';
import { describeError, runLoop } from './jobLoop.ts';

describe('runLoop', () => {
  it('keeps running through failures, logging each, until aborted', async () => {
    const { logger, text } = capturingLogger();
    const controller = new AbortController();
    let passes = 0;
    await runLoop(
      { name: 'job', intervalMs: 1, maxBackoffMs: 2, signal: controller.signal, logger },
      async () => {
        passes += 1;
        if (passes <= 3) throw new Error(`boom ${passes}`);
        if (passes === 6) controller.abort();
        return 'idle';
      },
    );
    expect(passes).toBe(6);
    const logs = text();
    expect(logs.match(/background job failed/g)).toHaveLength(3);
    expect(logs).toContain('background job recovered');
  });

  it('runs busy passes back to back', async () => {
    const { logger } = capturingLogger();
    const controller = new AbortController();
    let passes = 0;
    await runLoop({ name: 'job', intervalMs: 60_000, signal: controller.signal, logger }, async () => {
      passes += 1;
      if (passes === 50) controller.abort();
      return 'busy';
    });
    expect(passes).toBe(50);
  });
});

describe('describeError', () => {
  it('keeps only the host of URLs, which often carry provider API keys', () => {
    const error = Object.assign(new Error('long'), {
      shortMessage:
        'HTTP request failed. URL: https://polygon-mainnet.example.io/v2/SECRETKEY?x=1 Status: 500',
    });
    const described = describeError(error);
    expect(described.message).toContain('https://polygon-mainnet.example.io/…');
    expect(described.message).not.toContain('SECRETKEY');
  });
});
