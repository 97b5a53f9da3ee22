import type { Clock } from '../../src/app/shared/ports.ts';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  private current: number;

  constructor(start = new Date('2026-11-21T12:00:00.000Z')) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(date: Date): void {
    this.current = date.getTime();
  }
}
