/**
 * The supervisor's pure parts (src/runtime/in-workerd/supervisor/), run in Node: which client facts it believes
 * (only the HTTPS listener's, vouched for by the secret) and the access record's fields it sends behind nginx.
 */
import { describe, expect, it } from 'vitest';
import { frontFacts } from '../../../src/runtime/in-workerd/supervisor/front-facts.js';
import { recordText } from '../../../src/runtime/in-workerd/supervisor/record.js';

const SECRET = 'secret';

describe('the supervisor: front facts', () => {
  it('believes the HTTPS listener with the secret: its scheme and client address, headers taken off', () => {
    const facts = frontFacts(new Request('http://a.example/p?q', {
      headers: { 'x-stratus-front': SECRET, 'x-stratus-scheme': 'https', 'x-stratus-client-ip': '192.0.2.7', 'x-kept': '1' },
    }), SECRET);
    expect(facts).toMatchObject({ trusted: true, scheme: 'https', clientIp: '192.0.2.7' });
    expect(facts.request!.url).toBe('https://a.example/p?q');
    expect([...facts.request!.headers.keys()].filter((h) => h.startsWith('x-stratus'))).toEqual([]);
    expect(facts.request!.headers.get('x-kept')).toBe('1');
  });

  it('ignores the same headers without the secret, and takes them off too', () => {
    const facts = frontFacts(new Request('http://a.example/', {
      headers: { 'x-stratus-front': 'forged', 'x-stratus-scheme': 'https', 'x-stratus-client-ip': '192.0.2.7' },
    }), SECRET);
    expect(facts).toMatchObject({ trusted: false, scheme: 'http', clientIp: '0.0.0.0' });
    expect(facts.request!.url).toBe('http://a.example/');
    expect(facts.request!.headers.has('x-stratus-client-ip')).toBe(false);
  });

  it('takes the scheme of a fast request nginx\'s backup sent from x-stratus-proto, and a client\'s x-stratus-proto off any other', () => {
    const headers = { 'x-stratus-proto': 'https', 'x-kept': '1' };
    const fallback = frontFacts(new Request('http://a.example/p', { headers }), SECRET, true);
    expect(fallback).toMatchObject({ trusted: false, scheme: 'https' });
    expect(fallback.request!.url).toBe('https://a.example/p');
    expect(fallback.request!.headers.has('x-stratus-proto')).toBe(false);
    const other = frontFacts(new Request('http://a.example/p', { headers }), SECRET);
    expect(other).toMatchObject({ trusted: false, scheme: 'http' });
    expect(other.request!.url).toBe('http://a.example/p');
    expect(other.request!.headers.has('x-stratus-proto')).toBe(false);
    expect(other.request!.headers.get('x-kept')).toBe('1');
  });

  it('reads the client address from workerd\'s request.cf, and leaves a plain request as it is', () => {
    const request = new Request('http://a.example/');
    Object.defineProperty(request, 'cf', { value: { clientIp: '[2001:db8::1]:5678' } });
    const facts = frontFacts(request, SECRET);
    expect(facts).toEqual({ trusted: false, scheme: 'http', clientIp: '2001:db8::1' });
  });
});

describe('the supervisor: record header', () => {
  it('names the route and ray, the account when a script ran, the client only when vouched for', () => {
    expect(JSON.parse(recordText({ route: 'origin' }, 'r1', { trusted: false, clientIp: '192.0.2.1' }))).toEqual({ route: 'origin', requestId: 'r1' });
    expect(JSON.parse(recordText({ route: 'script:s', accountId: 'acc' }, 'r2', { trusted: true, clientIp: '192.0.2.7' })))
      .toEqual({ route: 'script:s', requestId: 'r2', accountId: 'acc', remote: '192.0.2.7' });
    expect(JSON.parse(recordText({ route: 'origin' }, 'r3', { trusted: true, clientIp: '192.0.2.7', scheme: 'https' })))
      .toEqual({ route: 'origin', requestId: 'r3', remote: '192.0.2.7', scheme: 'https' });
  });
});
