/**
 * What a port answers with when the answer may already be at hand: the value itself when it is (a remembered
 * key, a fresh rate, a token bucket in memory), a promise when it must be waited for. A failure is always a
 * rejected promise, never a throw, so a caller handles failure in one place whichever form comes back.
 *
 * Why not always a promise: the merchant API's hot path (the rate limit, the key lookup, a conversion) asks
 * three ports per request, almost always answered from memory, and a promise per answer was a measurable share
 * of a request (docs/performance.md).
 */
export type ValueOrPromise<T> = T | Promise<T>;

/** Whether the answer must be waited for. */
export function mustWait<T>(answer: ValueOrPromise<T>): answer is Promise<T> {
  return answer instanceof Promise;
}

/** Runs `next` on the answer now when it is at hand, else when it comes; a throw in `next` becomes a rejection. */
export function mapValueOrPromise<T, R>(
  answer: ValueOrPromise<T>,
  next: (value: T) => ValueOrPromise<R>,
): ValueOrPromise<R> {
  if (mustWait(answer)) return answer.then(next);
  try {
    return next(answer);
  } catch (error) {
    return Promise.reject(error);
  }
}
