/** A clock tests move by hand (`startTestServer({ clock })`), so time-dependent rules are tested without waiting. */
import type { Clock } from '../../src/shared/clock.js';

/** A clock that starts at `start` (default: the wall clock now) and moves only when told. */
export class ManualClock implements Clock {
  private at: number;

  constructor(start: Date = new Date()) {
    this.at = start.getTime();
  }

  /** The clock's current instant. */
  now(): Date {
    return new Date(this.at);
  }

  /** Sets the clock to `instant` (a Date or ms since the epoch). */
  set(instant: Date | number): void {
    this.at = typeof instant === 'number' ? instant : instant.getTime();
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.at += ms;
  }
}
