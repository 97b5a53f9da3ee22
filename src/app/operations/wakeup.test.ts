import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWakeup } from './wakeup.ts';

/** Whether the promise has settled, read without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('createWakeup', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits the whole time when nobody wakes it, and not a millisecond less', async () => {
    const wakeup = createWakeup();
    const waiting = wakeup.wait(1_000, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
  });

  it('ends a wait at once when woken during it', async () => {
    const wakeup = createWakeup();
    const waiting = wakeup.wait(60_000, new AbortController().signal);
    expect(await settled(waiting)).toBe(false);
    wakeup.wake();
    expect(await settled(waiting)).toBe(true);
  });

  it('keeps a wake that came while nobody waited for the next wait only', async () => {
    const wakeup = createWakeup();
    wakeup.wake();
    wakeup.wake();
    expect(await settled(wakeup.wait(60_000, new AbortController().signal))).toBe(true);
    const next = wakeup.wait(60_000, new AbortController().signal);
    expect(await settled(next)).toBe(false);
    wakeup.wake();
    expect(await settled(next)).toBe(true);
  });

  it('ends a wait when its signal aborts, and one already aborted at once', async () => {
    const wakeup = createWakeup();
    const controller = new AbortController();
    const waiting = wakeup.wait(60_000, controller.signal);
    controller.abort();
    expect(await settled(waiting)).toBe(true);
    expect(await settled(wakeup.wait(60_000, controller.signal))).toBe(true);
  });
});
