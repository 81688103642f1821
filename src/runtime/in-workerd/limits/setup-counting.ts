/**
 * The setup module of a script version with a subrequest limit (`__stratus_limits_setup__.mjs`), evaluated before
 * the script's modules: the pass guard's built-ins captured, each request's counters in an `AsyncLocalStorage`
 * (concurrent requests of one script never share a budget, and work a request starts with `ctx.waitUntil` counts
 * against it), and the global `fetch` replaced with a counting one (a script that keeps a reference to `fetch` at
 * load time gets the counting one too). Its settings are the version's limits config module.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import CONFIG from 'stratus:limits-config';
import { subrequestCounters, type Counts } from './counters.js';

export { passAnswer, pageAnswer, rayOf, takeNonce, unreadBody } from './pass-guard.js';

/** The counters of the request in progress. */
export const requests = new AsyncLocalStorage<Counts>();
/** {@link SubrequestCounters} charged to the request in progress. */
export const { over, withCountedBuckets } = subrequestCounters(CONFIG, () => requests.getStore());
const realFetch = globalThis.fetch;
globalThis.fetch = function fetch(input: RequestInfo | URL, init?: RequestInit) {
  const error = over('fetch');
  return error ? Promise.reject(error) : realFetch(input, init);
} as typeof fetch;
