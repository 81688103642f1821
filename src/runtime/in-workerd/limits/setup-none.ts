/**
 * The setup module when both subrequest limits are off (`__stratus_limits_setup__.mjs`): the pass guard's
 * built-ins captured, and nothing counted (no AsyncLocalStorage, so no extra compatibility flag).
 */
export { passAnswer, pageAnswer, rayOf, takeNonce, unreadBody } from './pass-guard.js';

/** Runs the request's handler as it is (nothing to count). */
export const requests = { run: <R>(_counts: unknown, f: () => R): R => f() };
/** Never over: nothing is counted. */
export function over(): undefined { return undefined; }
/** env as it is. */
export function withCountedBuckets<E>(env: E): E { return env; }
