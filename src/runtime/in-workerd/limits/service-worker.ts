/**
 * Evaluated before a CommonJS main module (a Service Worker script; `__stratus_service_worker__.mjs`): the
 * version's bindings become globals (counted like env's, as production gives a Service Worker its bindings), and
 * `addEventListener('fetch', …)` listeners are kept for the entry, which dispatches each request to them.
 * https://developers.cloudflare.com/workers/reference/migrate-to-module-workers/
 */
import { env } from 'cloudflare:workers';
import { withCountedBuckets } from 'stratus:limits-setup';
import type { FetchListener } from './dispatch.js';

/** The script's `fetch` listeners, in the order it added them. */
export const listeners: FetchListener[] = [];
const bound = withCountedBuckets(env as unknown as Record<string, unknown>);
const globals = globalThis as unknown as Record<string, unknown>;
for (const name of Object.keys(bound)) globals[name] = bound[name];
const add = globalThis.addEventListener as ((type: string, listener: unknown, options?: unknown) => void) | undefined;
globals.addEventListener = function addEventListener(type: string, listener: FetchListener, options?: unknown) {
  if (type === 'fetch') { listeners.push(listener); return; }
  return add?.call(globalThis, type, listener, options);
};
