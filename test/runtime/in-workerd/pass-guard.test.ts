/**
 * The pass guard of a script version's setup module (src/runtime/in-workerd/limits/pass-guard.ts), run in Node:
 * the nonce comes off the request with built-ins captured when the module loaded, so a script that replaces them
 * later never sees it; the pass-on answer carries the nonce and resolves as itself.
 */
import { describe, expect, it } from 'vitest';
import { passAnswer, pageAnswer, rayOf, takeNonce, unreadBody } from '../../../src/runtime/in-workerd/limits/pass-guard.js';
import { PASS_HEADER, PASS_NONCE_HEADER, PASS_REASON_HEADER, RECORD_HEADER } from '../../../src/runtime/in-workerd/headers.js';

const marked = (extra: Record<string, string> = {}) => new Request('http://a.example/p', { headers: { [PASS_NONCE_HEADER]: 'n1', 'x-other': 'kept', ...extra } });

describe('the pass guard', () => {
  it('takes the nonce and the record off the request, and keeps the rest', () => {
    const taken = takeNonce(marked({ [RECORD_HEADER]: '{"route":"r"}' }));
    expect(taken.nonce).toBe('n1');
    expect(taken.record).toBe('{"route":"r"}');
    expect(taken.request.headers.has(PASS_NONCE_HEADER)).toBe(false);
    expect(taken.request.headers.has(RECORD_HEADER)).toBe(false);
    expect(taken.request.headers.get('x-other')).toBe('kept');
    expect(Object.getPrototypeOf(taken)).toBeNull();
  });

  it('leaves a request without a nonce as it is (the fast path)', () => {
    const request = new Request('http://a.example/', { headers: { [RECORD_HEADER]: 'r' } });
    const taken = takeNonce(request);
    expect(taken).toMatchObject({ nonce: null, record: null });
    expect(taken.request).toBe(request);
  });

  it('reads the nonce with the built-ins of load time, not ones a script replaced', () => {
    const real = Headers.prototype.get;
    Headers.prototype.get = function () { return null; };
    try {
      expect(takeNonce(marked()).nonce).toBe('n1');
      expect(rayOf(new Request('http://a.example/', { headers: { 'cf-ray': 'abc-STR' } }))).toBe('abc-STR');
    } finally {
      Headers.prototype.get = real;
    }
  });

  it('marks a pass-on answer with the nonce and the reason; awaiting it gives the answer itself', async () => {
    const res = passAnswer(null, 'n1', 'exception');
    expect(res.headers.get(PASS_HEADER)).toBe('n1');
    expect(res.headers.get(PASS_REASON_HEADER)).toBe('exception');
    expect(await Promise.resolve(res)).toBe(res);
    expect(() => passAnswer(null, null, 'exception')).toThrow('this request cannot be passed on');
  });

  it('gives a body only while the script left it unread', async () => {
    expect(unreadBody(new Request('http://a.example/'))).toBeNull();
    const unread = new Request('http://a.example/', { method: 'POST', body: 'abc' });
    expect(unreadBody(unread)).toBeInstanceOf(ReadableStream);
    const read = new Request('http://a.example/', { method: 'POST', body: 'abc' });
    await read.text();
    expect(unreadBody(read)).toBeUndefined();
  });

  it('renders the error page answer under the ray id', async () => {
    const res = pageAnswer(500, 1101, 'Worker threw exception', 'detail <b>', 'ray-1');
    expect(res.status).toBe(500);
    expect(res.headers.get('cf-ray')).toBe('ray-1');
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    const html = await res.text();
    expect(html).toContain('Error</span> <span>1101');
    expect(html).toContain('detail &#60;b&#62;');
  });
});
