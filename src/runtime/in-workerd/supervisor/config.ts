/**
 * What one generation's supervisor is told by Node: its settings, the `config.json` module. Shared by the
 * supervisor and the Node code that writes the generation (`runtime-slot.ts`); nothing here is workerd's.
 */

/** Settings of one generation's supervisor (its `config.json`). */
export interface SupervisorConfig {
  /** Version id -> binding name of its worker in this generation. */
  versions: Record<string, string>;
  /** Shared secret of internal requests (hand-off, ping, flush). */
  secret: string;
  /** How long a route answer is reused without a change notice (ms). */
  cacheMs: number;
  /** Wall-time limit of a script's answer (ms); 0 for none. */
  wallMs: number;
  /** Largest request body accepted (bytes). */
  maxRequestBytes: number;
  /** The ray id's location suffix. */
  colo: string;
  /** Error pages carry the script's exception (`stratus dev`). */
  exposeErrors: boolean;
  /** Version id -> its own CPU limit (ms), for versions whose limit is below the node's (cpu-budgets.ts). */
  cpuMs?: Record<string, number>;
  /** The runtime slot this generation belongs to (runtime-slot.ts), named in its `/cpu` reports. */
  slot?: number;
  /** This generation's number (runtime-slot.ts), named in its `/cpu` reports: its budgets leave with it. */
  generation?: number;
  /** Behind the nginx front: no access reports; each answer carries its record's fields in `x-stratus-record`. */
  recordHeader?: boolean;
}
