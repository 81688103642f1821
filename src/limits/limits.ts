/**
 * The limits on abuse of one node, built from the configuration (docs/security.md, "Limits on abuse"): the
 * failed-authentication throttle shared by the v4 and S3 listeners and the per-subject request rates of each.
 * Their counts live in memory on the embedded SQLite store (one node) and in PostgreSQL when the nodes share
 * one (shared-counters.ts). A limit configured as 0 is absent.
 */
import type { Kysely } from 'kysely';
import type { LimitsConfig } from '../config/config.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { AuthThrottle } from './auth-throttle.js';
import { RateLimit } from './rate-limit.js';
import { SharedCounters } from './shared-counters.js';
import { MemoryCounters, type WindowCounters } from './window-counters.js';

/** The limits a listener applies; each is undefined when turned off. */
export interface Limits {
  auth?: AuthThrottle;
  /** v4 requests per user (or account-owned token). */
  api?: RateLimit;
  /** S3 requests per key holder. */
  s3?: RateLimit;
  /** Writes what shared counters still hold and stops their timer. */
  close(): Promise<void>;
}

/** Options of {@link openLimits}. */
export interface OpenLimitsOptions {
  config: LimitsConfig;
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  clock: Clock;
  logger: Logger;
  /** Flush interval of shared counters (ms; default 1000). */
  flushMs?: number;
}

/** Builds the configured limits. */
export function openLimits(opts: OpenLimitsOptions): Limits {
  const { config, clock } = opts;
  if (config.apiRequests === 0 && config.s3Requests === 0 && config.authFailures === 0) return { close: async () => {} };
  const counters: WindowCounters = opts.dialect === 'postgres'
    ? new SharedCounters({ db: opts.db, clock, logger: opts.logger, ...(opts.flushMs !== undefined ? { flushMs: opts.flushMs } : {}) })
    : new MemoryCounters(clock);
  const rate = (limit: number, name: string) => (limit > 0 ? new RateLimit(counters, clock, { limit, windowSeconds: config.windowSeconds, name }) : undefined);
  const api = rate(config.apiRequests, 'v4');
  const s3 = rate(config.s3Requests, 's3');
  const auth = config.authFailures > 0 ? new AuthThrottle(counters, clock, { limit: config.authFailures, windowSeconds: config.authFailureWindowSeconds }) : undefined;
  return { ...(auth ? { auth } : {}), ...(api ? { api } : {}), ...(s3 ? { s3 } : {}), close: () => counters.close() };
}
