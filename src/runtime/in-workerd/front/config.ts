/** What the front worker is told by Node: its settings, the `config.json` module (front-door.ts); nothing here is workerd's. */

/** Settings of the front worker (its `config.json`). */
export interface FrontConfig {
  /** Shared secret of the ping the watchdog sends. */
  secret: string;
  /** Largest request body accepted (bytes). */
  maxRequestBytes: number;
  /** The ray id's location suffix. */
  colo: string;
  /** Requests go to their account's runtime slot (asked of Node, cached); false: every request to slot 0. */
  routed: boolean;
  /** How long a route answer is reused without a change notice (ms). */
  cacheMs: number;
}
