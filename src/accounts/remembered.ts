/**
 * A short memory of successful credential look-ups (the v4 API's keys and tokens, the S3 API's token key
 * pairs). Invariants:
 *
 * - only look-ups that found something are kept, so a token that is not yet valid (`not_before`), unknown or
 *   disabled is looked up again on every request;
 * - an entry is kept for {@link REMEMBER_MS} at most, and never past the instant its value stops being valid
 *   (a token's `expires_on`): a remembered token fails at that exact instant, as an unremembered one would;
 * - every entry is forgotten at once when this process changes a token (`tokenChangeGeneration`), so a
 *   change made on a node applies there at once, and on the other nodes sharing the database within
 *   {@link REMEMBER_MS} (the bound `docs/api-tokens.md` states);
 * - time comes from the injected {@link Clock}, the same one the token checks read.
 */
import { tokenChangeGeneration } from './tokens.js';
import { systemClock, type Clock } from '../shared/clock.js';

/** How long a successful look-up is remembered (the bound on a change made on another node). */
export const REMEMBER_MS = 5000;
/** Most remembered look-ups (the memory starts over when full). */
const MAX_ENTRIES = 10_000;

/** Remembered look-ups by credentials. */
export class Remembered<T> {
  private readonly entries = new Map<string, { value: T; until: number; generation: number }>();

  /**
   * @param clock the time source (the one the token checks read);
   * @param validUntil the instant (ms since the epoch) from which a value is no longer valid, if it has one.
   */
  constructor(private readonly clock: Clock = systemClock, private readonly validUntil: (value: T) => number | undefined = () => undefined) {}

  /** The remembered value for `key`, or the result of `look` (remembered when defined); `fresh` always looks. */
  async get(key: string, look: () => Promise<T | undefined>, fresh = false): Promise<T | undefined> {
    const now = this.clock.now().getTime();
    const generation = tokenChangeGeneration();
    const hit = this.entries.get(key);
    if (!fresh && hit && hit.until > now && hit.generation === generation) return hit.value;
    if (hit) this.entries.delete(key);
    const value = await look();
    if (value !== undefined) {
      const until = Math.min(now + REMEMBER_MS, this.validUntil(value) ?? Infinity);
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      if (until > now) this.entries.set(key, { value, until, generation });
    }
    return value;
  }
}

/** The instant a stored `expires_on` (RFC 3339 or null) ends a token's validity, for {@link Remembered}. */
export function expiryInstant(expiresOn: string | null): number | undefined {
  if (expiresOn === null) return undefined;
  const at = Date.parse(expiresOn);
  return Number.isNaN(at) ? undefined : at;
}
