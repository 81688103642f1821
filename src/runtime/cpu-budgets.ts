/**
 * Requests in flight of script versions with their own CPU limit (`limits.cpu_ms` below the node's
 * `--script-cpu-ms`), by ray id. The supervisor tells Node before such a request runs (`POST /cpu` of the
 * control service); its access record ends it: the supervisor's report when it answers (workerd front), or the
 * line nginx writes when the request is done (nginx front, read back within about 100 ms). While any is in flight the watchdog holds
 * the generation to the smallest of their limits: workerd runs every script on one thread, so a request that
 * keeps the runtime busy longer than its own limit is caught the way the node's limit catches any (the
 * generation is replaced and the requests in flight get the 1102 page). Each entry names the generation serving
 * it, so a generation that is killed takes only its own entries along: requests still running on a replaced
 * generation keep their limits while it drains (watchdog.ts holds draining generations to them too).
 */

/** An entry whose access record never came (a lost report) stops counting after this long, ms. */
const STALE_MS = 15 * 60_000;

/** Budgets of the requests in flight. */
export class CpuBudgets {
  private readonly inFlight = new Map<string, { ms: number; since: number; generation: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A request of a version with its own CPU limit (ms) starts, on generation number `generation`. */
  begin(ray: string, ms: number, generation: number): void {
    if (this.inFlight.size < 100_000) this.inFlight.set(ray, { ms, since: this.now(), generation });
  }

  /** These requests answered. */
  end(rays: Iterable<string>): void {
    if (this.inFlight.size === 0) return;
    for (const ray of rays) this.inFlight.delete(ray);
  }

  /** Whether a request with its own CPU limit is in flight (else {@link end} has nothing to do). */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** Generation `generation` was killed or exited: its requests are gone. */
  forget(generation: number): void {
    for (const [ray, entry] of this.inFlight) if (entry.generation === generation) this.inFlight.delete(ray);
  }

  /** The smallest own limit among the requests in flight on generation `generation`, or undefined when none has one. */
  smallest(generation: number): number | undefined {
    let min: number | undefined;
    const now = this.now();
    for (const [ray, { ms, since, generation: g }] of this.inFlight) {
      if (now - since > STALE_MS) this.inFlight.delete(ray);
      else if (g === generation && (min === undefined || ms < min)) min = ms;
    }
    return min;
  }
}
