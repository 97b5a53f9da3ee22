/**
 * A nudge from one background job to another in the same process: the source chain's bridge job, having just
 * recorded an attestation, wakes the home settler so that it mints now rather than at its next poll
 * (decision 0037). A wake that comes while the woken job is busy is kept, so it is never lost: the job's next
 * wait returns at once. Across processes nothing is shared: a settler in another worker finds the same work at
 * its next poll, as it always did.
 */
export interface Wakeup {
  wake(): void;
  /** Waits `ms`, less if woken meanwhile (or before, since the last wait), or until `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void>;
}

export function createWakeup(): Wakeup {
  let woken = false;
  let cutShort: (() => void) | undefined;
  return {
    wake() {
      woken = true;
      cutShort?.();
    },
    async wait(ms, signal) {
      if (!woken && !signal.aborted) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            cutShort = undefined;
            resolve();
          };
          const timer = setTimeout(done, ms);
          signal.addEventListener('abort', done, { once: true });
          cutShort = done;
        });
      }
      woken = false;
    },
  };
}
