/** The shape of one differential step and the context both sides give it. */
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Difference } from './differences.js';

/** What a step receives besides the bucket. Identical on both sides except `advanceClock` (a no-op in Miniflare). */
export interface StepContext {
  /** State carried between the steps of one group (upload handles, parts, timestamps). */
  s: Record<string, any>;
  bytes(n: number, seed: number): Uint8Array;
  FixedLengthStream: any;
  /** Moves Stratus's clock forward (Miniflare's clock cannot be moved: there it does nothing). */
  advanceClock(ms: number): void;
}

/** One operation (or a few tightly related ones) run against both buckets. */
export interface Step {
  name: string;
  /** Self-contained (it is sent to workerd as source text): use only `b`, `ctx` and globals. */
  run: (b: any, ctx: StepContext) => Promise<unknown>;
  /** When Stratus deliberately differs: the difference's name and Stratus's expected outcome from Miniflare's. */
  diff?: { difference: Difference; expected: (miniflare: any) => any };
}

/** A named list of steps run in order on a bucket of its own. */
export interface StepGroup {
  name: string;
  steps: Step[];
}

/** Shorthand for a step. */
export function step(name: string, run: Step['run'], diff?: Step['diff']): Step {
  return diff ? { name, run, diff } : { name, run };
}
