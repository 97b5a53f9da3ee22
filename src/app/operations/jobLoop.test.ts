import { afterEach, describe, expect, it, vi } from 'vitest';
import { capturingLogger } from '../../../test/helpers/logCapture.ts';
import { describeError, runLoop } from './jobLoop.ts';
import { createWakeup } from './wakeup.ts';

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

describe('runLoop’s waits', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs the loop until `passesWanted` passes have run, returning how many ran by each tick asked about. */
  function loop(outcome: 'idle' | 'soon', wakeup?: ReturnType<typeof createWakeup>) {
    const { logger } = capturingLogger();
    const controller = new AbortController();
    let passes = 0;
    const running = runLoop(
      { name: 'job', intervalMs: 60_000, signal: controller.signal, logger, wakeup },
      async () => {
        passes += 1;
        return outcome;
      },
    );
    return {
      passes: () => passes,
      stop: async () => {
        controller.abort();
        await running;
      },
    };
  }

  it('runs the next pass a quarter interval after a `soon` pass, a whole one after an `idle` pass', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    const soon = loop('soon');
    const idle = loop('idle');
    // Node (and the fake clock) round a wait of 14,999.x ms down: a millisecond's slack either side.
    await vi.advanceTimersByTimeAsync(14_000);
    expect([soon.passes(), idle.passes()]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([soon.passes(), idle.passes()]).toEqual([2, 1]);
    await vi.advanceTimersByTimeAsync(59_000 - 15_000);
    expect(idle.passes()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(idle.passes()).toBe(2);
    await soon.stop();
    await idle.stop();
  });

  it('runs the next pass at once when another job wakes it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    const wakeup = createWakeup();
    const job = loop('idle', wakeup);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(job.passes()).toBe(1);
    wakeup.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(job.passes()).toBe(2);
    await job.stop();
  });
});
