/**
 * The entry's dispatch of a request to a Service Worker script's listeners, as a fetch event (`respondWith`,
 * `waitUntil`, `passThroughOnException`). When no listener calls `respondWith()`, the dispatch resolves with
 * {@link NO_RESPOND_WITH} and the request passes on to the origin, as production does.
 */
import { NO_RESPOND_WITH, type PassState } from './pass-state.js';

/** A `fetch` listener as a script adds it: a function or an object with `handleEvent`. */
export type FetchListener = ((event: Event) => void) | { handleEvent(event: Event): void };

/** The part of a request's context a fetch event uses. */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void;
}

class StratusFetchEvent extends Event {
  declare _answered?: boolean;
  constructor(readonly request: Request, private readonly _ctx: WaitUntil, private readonly _pass: PassState, private readonly _settle: (answer: unknown) => void) { super('fetch'); }
  respondWith(answer: Response | Promise<Response>): void { if (this._answered) throw new Error('respondWith() was already called'); this._answered = true; this._settle(answer); }
  waitUntil(promise: Promise<unknown>): void { this._ctx.waitUntil(promise); }
  passThroughOnException(): void { this._pass.onException = true; }
}

/** The listeners' answer to the request, or {@link NO_RESPOND_WITH}; rejects when a listener threw. */
export function dispatch(listeners: FetchListener[], request: Request, ctx: WaitUntil, pass: PassState): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const event = new StratusFetchEvent(request, ctx, pass, (answer) => Promise.resolve(answer).then(resolve, reject));
    try { for (const l of listeners) typeof l === 'function' ? l.call(globalThis, event) : l.handleEvent(event); }
    catch (e) { reject(e); return; }
    if (!event._answered) resolve(NO_RESPOND_WITH);
  });
}
