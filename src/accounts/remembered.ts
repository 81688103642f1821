/**
 * A short memory of successful credential look-ups (the v4 API's keys and tokens, the S3 API's token key
 * pairs): only look-ups that found something are kept, for {@link REMEMBER_MS}, and all are forgotten at once
 * when this process changes a token (`tokenChangeGeneration`), so a change made on a node applies there at
 * once and on the other nodes within that time.
 */
import { tokenChangeGeneration } from './tokens.js';

/** How long a successful look-up is remembered. */
export const REMEMBER_MS = 5000;
/** Most remembered look-ups (the memory starts over when full). */
const MAX_ENTRIES = 10_000;

/** Remembered look-ups by credentials. */
export class Remembered<T> {
  private readonly entries = new Map<string, { value: T; until: number; generation: number }>();

  /** The remembered value for `key`, or the result of `look` (remembered when defined). */
  async get(key: string, look: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = Date.now();
    const generation = tokenChangeGeneration();
    const hit = this.entries.get(key);
    if (hit && hit.until > now && hit.generation === generation) return hit.value;
    const value = await look();
    if (value !== undefined) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, { value, until: now + REMEMBER_MS, generation });
    }
    return value;
  }
}
