/** The supervisor's bindings, and the shapes its parts pass each other. */
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

/** What the request turned out to be: route label (script:NAME, origin, unserved) and the script's account. */
export interface Seen {
  route: string;
  accountId?: string;
  front?: FrontFacts;
}

/** The client's scheme and address, and the request as the script sees it (see `front-facts.ts`). */
export interface FrontFacts {
  /** The request came through Stratus's HTTPS listener, vouched for by the secret. */
  trusted?: boolean;
  scheme?: 'http' | 'https';
  clientIp?: string;
  /** The request without the listener's headers (and with https:// when it came over HTTPS), when it had them. */
  request?: Request;
}
