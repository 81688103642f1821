/**
 * A script version's own limits, as production's upload metadata and settings carry them (`limits: { cpu_ms,
 * subrequests }`; wrangler sends its config's `[limits]` table as is): CPU milliseconds per request (production
 * allows up to 5 minutes) and subrequests per request (production allows up to 10 million). They are stored
 * with the version and applied per request by the runtime, never above the node's own flags
 * (`runtime/workerd/limits-shim.ts`, `effectiveLimits`).
 * https://developers.cloudflare.com/workers/wrangler/configuration/#limits
 */
import type { ScriptLimits } from '../edge/types.js';
import { invalidUpload } from './errors.js';

/** Production's largest `cpu_ms` (5 minutes) and `subrequests` (10 million). */
export const MAX_CPU_MS = 300_000;
export const MAX_SUBREQUESTS = 10_000_000;

const FIELDS = { cpu_ms: MAX_CPU_MS, subrequests: MAX_SUBREQUESTS } as const;

/**
 * Checks the `limits` object of upload metadata or settings (`where` names it in messages): each field a whole
 * number from 1 to its maximum; the SDK's bracketed form sends numbers as strings, which are read too. An
 * unknown field is refused, never ignored. Returns the stored form (production's field names).
 */
export function parseLimits(value: unknown, where = 'metadata.limits'): StoredLimits {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidUpload(`${where} must be an object such as {"cpu_ms": 50, "subrequests": 1000}`);
  const out: StoredLimits = {};
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    if (!(key in FIELDS)) throw invalidUpload(`${where}.${key} is not a limit Stratus knows: use cpu_ms and subrequests`);
    if (raw === null || raw === undefined) continue;
    const max = FIELDS[key as keyof typeof FIELDS];
    const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) {
      throw invalidUpload(`${where}.${key} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`);
    }
    out[key as keyof StoredLimits] = n;
  }
  return out;
}

/** The limits as stored with a version (`workers_versions.limits`) and shown by the API. */
export interface StoredLimits {
  cpu_ms?: number;
  subrequests?: number;
}

/** The runtime's form of stored limits. */
export function runtimeLimits(stored: StoredLimits): ScriptLimits {
  return {
    ...(stored.cpu_ms !== undefined ? { cpuMs: stored.cpu_ms } : {}),
    ...(stored.subrequests !== undefined ? { subrequests: stored.subrequests } : {}),
  };
}
