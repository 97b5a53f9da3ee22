/**
 * Webhook ids already acted on, so a replayed delivery (same id, still inside the timestamp tolerance) does
 * nothing. Ids are kept twice the tolerance: anything older fails the timestamp check anyway. One process's
 * memory: with several Medusa servers a replay may reach another, where Medusa's own idempotent workflow
 * (an already completed cart stays completed) is what stops it.
 */
export class ReplayGuard {
  readonly #seen = new Map<string, number>();
  readonly #keepMs: number;

  constructor(toleranceSeconds: number) {
    this.#keepMs = 2 * toleranceSeconds * 1000;
  }

  /** True the first time an id is seen; false for a replay. */
  firstTime(id: string, now = Date.now()): boolean {
    for (const [seen, at] of this.#seen) {
      if (now - at <= this.#keepMs) break;
      this.#seen.delete(seen);
    }
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}
