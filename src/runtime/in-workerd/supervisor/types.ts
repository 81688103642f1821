/** The supervisor's bindings, and the targets the control service answers. */
import type { EdgeTarget } from '../../../edge/types.js';

/** The supervisor's bindings: Node's control service (twice: routes and reports, origins) and a worker per version. */
export interface SupervisorEnv {
  CONTROL: Fetcher;
  ORIGIN: Fetcher;
  [versionBinding: string]: Fetcher;
}

/** A target the control service answers (`/resolve`). */
export type Target = EdgeTarget;
/** A script target. */
export type ScriptTarget = Extract<EdgeTarget, { kind: 'script' }>;
/** An origin target. */
export type OriginTarget = Extract<EdgeTarget, { kind: 'origin' }>;
/** A bucket target. */
export type BucketTarget = Extract<EdgeTarget, { kind: 'bucket' }>;
