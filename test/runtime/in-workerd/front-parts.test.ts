/**
 * The front worker's pure parts (src/runtime/in-workerd/front/), run in Node: the route question it asks Node
 * for a request's runtime slot, and the count of a chunked body against the limit.
 */
import { describe, expect, it } from 'vitest';
import { counted } from '../../../src/runtime/in-workerd/front/body-limit.js';
import { routeQuery } from '../../../src/runtime/in-workerd/front/route-query.js';

const req = (url: string, headers: Record<string, string>) => new Request(url, { headers });

describe('the front: route question', () => {
  it('lowercases the Host, drops its port and brackets, and the query string', () => {
    expect(routeQuery(req('http://a.example/x/y?z=1', { host: 'A.Example:8080' }), 's')).toEqual({ host: 'a.example', path: '/x/y', scheme: 'http' });
    expect(routeQuery(req('http://[::1]/', { host: '[::1]:80' }), 's')).toEqual({ host: '::1', path: '/', scheme: 'http' });
  });

  it('has no question without a Host', () => {
    expect(routeQuery(req('http://a.example/', { host: '' }), 's')).toBeUndefined();
  });

  it('believes the https scheme only with the secret', () => {
    const https = { host: 'a.example', 'x-stratus-scheme': 'https' };
    expect(routeQuery(req('http://a.example/', { ...https, 'x-stratus-front': 's' }), 's')?.scheme).toBe('https');
    expect(routeQuery(req('http://a.example/', { ...https, 'x-stratus-front': 'forged' }), 's')?.scheme).toBe('http');
  });
});

describe('the front: body limit', () => {
  const stream = (chunks: string[]) => new ReadableStream<Uint8Array>({
    start(c) { for (const s of chunks) c.enqueue(new TextEncoder().encode(s)); c.close(); },
  });

  it('passes a body within the limit as it is', async () => {
    const state = { over: false };
    const abort = new AbortController();
    const text = await new Response(counted(stream(['ab', 'cd']), 4, state, abort)).text();
    expect(text).toBe('abcd');
    expect(state.over).toBe(false);
    expect(abort.signal.aborted).toBe(false);
  });

  it('stops at the chunk past the limit: marks it over and aborts the request', async () => {
    const state = { over: false };
    const abort = new AbortController();
    const text = await new Response(counted(stream(['ab', 'cd', 'e', 'f']), 4, state, abort)).text();
    expect(text).toBe('abcd');
    expect(state.over).toBe(true);
    expect(abort.signal.aborted).toBe(true);
  });
});
