/*
 * The status polling loop that the payment page (checkout.js) and the refund claim page (refund.js) share: the
 * checkout serves each page's script with this file before it, as one script (checkoutPlugin.ts), so the page
 * loads one file and the loop exists once.
 *
 * Asks `url` for the status every `intervalMs`, hands each answer to `apply`, and after a failure waits twice as
 * long each time (up to 30 s), showing `connectionLost` from the second failure in a row. It stops once `ended()`
 * says so, and waits at least `slowMs` while `slow()` does. A page that comes back into view asks at once.
 */
// biome-ignore lint/correctness/noUnusedVariables: called by the page script served after this file.
function followStatus({ url, intervalMs, slowMs, connectionLost, apply, ended, slow }) {
  const MAX_BACKOFF_MS = 30_000;
  let timer;
  let failures = 0;

  async function poll() {
    clearTimeout(timer);
    let next = intervalMs;
    try {
      const response = await fetch(url, {
        cache: 'no-store',
        headers: { accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      apply(await response.json());
      failures = 0;
      if (connectionLost) connectionLost.hidden = true;
    } catch {
      failures += 1;
      if (connectionLost && failures >= 2) connectionLost.hidden = false;
      next = Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** failures);
    }
    if (ended()) return;
    if (slow()) next = Math.max(next, slowMs);
    timer = setTimeout(poll, next);
  }

  function pollNow() {
    clearTimeout(timer);
    timer = setTimeout(poll, 0);
  }

  // A phone that slept or a tab in the background: refresh as soon as the customer looks again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !ended()) pollNow();
  });

  return {
    /** The first request, after `delayMs`, unless the status has already ended. */
    start(delayMs) {
      if (!ended()) timer = setTimeout(poll, delayMs);
    },
    pollNow,
  };
}
