/**
 * A Service Worker script's fetch event (src/runtime/in-workerd/limits/dispatch.ts), run in Node: the answer of
 * `respondWith`, a request no listener answers, a listener that throws, `waitUntil` and `passThroughOnException`.
 */
import { describe, expect, it } from 'vitest';
import { dispatch, type FetchListener } from '../../../src/runtime/in-workerd/limits/dispatch.js';
import { NO_RESPOND_WITH } from '../../../src/runtime/in-workerd/limits/pass-state.js';

type FetchEventLike = Event & { request: Request; respondWith(r: unknown): void; waitUntil(p: Promise<unknown>): void; passThroughOnException(): void };
const request = new Request('http://a.example/');
const ctx = (waiting: Promise<unknown>[] = []) => ({ waitUntil: (p: Promise<unknown>) => { waiting.push(p); } });

describe('the fetch event dispatch', () => {
  it('resolves with the first listener that answers, function or handleEvent object', async () => {
    const answer = new Response('hi');
    const listeners: FetchListener[] = [
      () => undefined,
      { handleEvent: (e) => { (e as FetchEventLike).respondWith(Promise.resolve(answer)); } },
    ];
    expect(await dispatch(listeners, request, ctx(), { onException: false })).toBe(answer);
  });

  it('gives the request, refuses a second respondWith, and passes waitUntil to the context', async () => {
    const waiting: Promise<unknown>[] = [];
    const seen: unknown[] = [];
    const listener: FetchListener = (e) => {
      const event = e as FetchEventLike;
      seen.push(event.request, event.type);
      event.waitUntil(Promise.resolve('later'));
      event.respondWith(new Response('one'));
      try { event.respondWith(new Response('two')); } catch (err) { seen.push((err as Error).message); }
    };
    const res = await dispatch([listener], request, ctx(waiting), { onException: false }) as Response;
    expect(await res.text()).toBe('one');
    expect(seen).toEqual([request, 'fetch', 'respondWith() was already called']);
    expect(waiting).toHaveLength(1);
  });

  it('resolves with NO_RESPOND_WITH when no listener answers, and records passThroughOnException', async () => {
    const pass = { onException: false };
    const listener: FetchListener = (e) => { (e as FetchEventLike).passThroughOnException(); };
    expect(await dispatch([listener], request, ctx(), pass)).toBe(NO_RESPOND_WITH);
    expect(pass.onException).toBe(true);
  });

  it('rejects with what a listener threw, or what its answer rejected with', async () => {
    await expect(dispatch([() => { throw new Error('boom'); }], request, ctx(), { onException: false })).rejects.toThrow('boom');
    const rejecting: FetchListener = (e) => { (e as FetchEventLike).respondWith(Promise.reject(new Error('late'))); };
    await expect(dispatch([rejecting], request, ctx(), { onException: false })).rejects.toThrow('late');
  });
});
