import { describe, expect, it } from 'vitest';
import { type AttemptResult, classifyResponse, nextDelivery, type RetryPolicy } from './webhookDelivery.ts';
import { DEFAULT_RETRY_AFTER_BOUNDS, DEFAULT_RETRY_SCHEDULE_MS } from './webhookRetry.ts';

const now = new Date('2026-11-21T12:00:00.000Z');
const policy: RetryPolicy = {
  scheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
  retryAfterBounds: DEFAULT_RETRY_AFTER_BOUNDS,
};
const response = (statusCode: number, retryAfter?: string): AttemptResult => ({
  kind: 'response',
  statusCode,
  retryAfter,
});
const decide = (result: AttemptResult, scheduleStep = 0) =>
  nextDelivery({ result, scheduleStep, policy, now, random: () => 0.5 });

describe('classifyResponse', () => {
  it('2xx is delivered, 410 stops, everything else (3xx included) is retried', () => {
    for (const code of [200, 201, 202, 204, 299]) expect(classifyResponse(code)).toBe('delivered');
    expect(classifyResponse(410)).toBe('stop');
    for (const code of [100, 301, 302, 307, 308, 400, 401, 404, 409, 429, 500, 502, 503]) {
      expect(classifyResponse(code), String(code)).toBe('retry');
    }
  });
});

describe('nextDelivery', () => {
  it('marks a 2xx delivered and a 410 stopped, with no next attempt', () => {
    expect(decide(response(204))).toStrictEqual({
      status: 'delivered',
      outcome: 'delivered',
      nextAttemptAt: null,
      scheduleStep: 1,
    });
    expect(decide(response(410), 3)).toMatchObject({
      status: 'stopped',
      nextAttemptAt: null,
      scheduleStep: 4,
    });
  });

  it('walks the schedule on failures and no answers, then fails after the tenth attempt', () => {
    const seen: (number | null)[] = [];
    let step = 0;
    for (;;) {
      const next = decide(step % 2 === 0 ? response(500) : { kind: 'error', error: 'timeout' }, step);
      seen.push(next.nextAttemptAt && next.nextAttemptAt.getTime() - now.getTime());
      step = next.scheduleStep;
      if (next.status !== 'pending') {
        expect(next).toMatchObject({ status: 'failed', outcome: 'failed' });
        break;
      }
    }
    expect(step).toBe(10);
    expect(seen).toStrictEqual([...DEFAULT_RETRY_SCHEDULE_MS, null]);
  });

  it('jitters the scheduled delay', () => {
    const early = nextDelivery({ result: response(500), scheduleStep: 0, policy, now, random: () => 0 });
    const late = nextDelivery({ result: response(500), scheduleStep: 0, policy, now, random: () => 0.999 });
    expect(early.nextAttemptAt!.getTime() - now.getTime()).toBe(4_500);
    expect(late.nextAttemptAt!.getTime() - now.getTime()).toBe(5_499);
  });

  it('honours Retry-After within its bounds instead of the schedule', () => {
    const delay = (retryAfter: string, step = 0) =>
      decide(response(503, retryAfter), step).nextAttemptAt!.getTime() - now.getTime();
    expect(delay('120')).toBe(120_000);
    expect(delay('0')).toBe(5_000);
    expect(delay('604800')).toBe(86_400_000);
    expect(delay('garbage')).toBe(5_000); // unreadable: the schedule (5 s, no jitter at 0.5)
    // Retry-After never adds attempts: after the last one the event fails whatever the receiver asks.
    expect(decide(response(429, '10'), DEFAULT_RETRY_SCHEDULE_MS.length).status).toBe('failed');
  });

  it('uses a configured schedule', () => {
    const short: RetryPolicy = { ...policy, scheduleMs: [1_000] };
    const first = nextDelivery({
      result: response(500),
      scheduleStep: 0,
      policy: short,
      now,
      random: () => 0.5,
    });
    expect(first.nextAttemptAt!.getTime() - now.getTime()).toBe(1_000);
    const second = nextDelivery({
      result: response(500),
      scheduleStep: 1,
      policy: short,
      now,
      random: () => 0.5,
    });
    expect(second.status).toBe('failed');
  });
});

describe('nextDelivery, at its edges', () => {
  it('retries a 300 like any other redirect', () => {
    expect(classifyResponse(300)).toBe('retry');
  });

  it('names the outcome of each attempt', () => {
    expect(decide(response(410)).outcome).toBe('stopped');
    expect(decide(response(500)).outcome).toBe('retry');
    expect(decide({ kind: 'error', error: 'ECONNREFUSED' }).outcome).toBe('retry');
  });

  it('refuses a negative or fractional schedule step', () => {
    expect(() => decide(response(500), -1)).toThrow(new RangeError('bad schedule step -1'));
    expect(() => decide(response(500), 1.5)).toThrow(new RangeError('bad schedule step 1.5'));
  });
});
