/** What the entry and a Service Worker's fetch event share about one request. */

/** A request's pass-through state: its script called passThroughOnException(). */
export interface PassState {
  onException: boolean;
}

/** What a Service Worker dispatch resolves with when no listener answered (no prototype: resolving looks nothing up). */
export const NO_RESPOND_WITH = Object.freeze({ __proto__: null }) as object;
