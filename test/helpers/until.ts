/** Waiting on a condition in tests (never on a fixed sleep): polls until a check gives a value. */

/** Options of {@link untilDefined}. */
export interface UntilOptions {
  /** Give up after this long (ms). */
  ms?: number;
  /** Time between checks (ms). */
  pollMs?: number;
  /** What to add to the timeout's message (a peer's log, a node's output). */
  detail?: () => string;
}

/** The first value `fn` gives that is not undefined (a throw counts as none yet); an Error naming `what` after `ms`. */
export async function untilDefined<T>(what: string, fn: () => Promise<T | undefined>, o: UntilOptions = {}): Promise<T> {
  const end = Date.now() + (o.ms ?? 30_000);
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${o.detail ? `\n${o.detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, o.pollMs ?? 100));
  }
}
