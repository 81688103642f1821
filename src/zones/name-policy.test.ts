import { describe, expect, it } from 'vitest';
import { NamePolicy } from './name-policy.js';

const policy = new NamePolicy({ nameservers: ['ns1.stratus.invalid', 'ns2.stratus.invalid'], listenerNames: ['s3.files.example'], allow: [] });
const code = (name: string) => policy.problem(name)?.code;

describe('NamePolicy', () => {
  it('refuses top-level domains and public suffixes of both sections of the list (1099)', () => {
    for (const n of ['co.uk', 'github.io', 'blogspot.com', 's3.amazonaws.com', 'xn--55qx5d.cn', 'arpa', 'in-addr.arpa', 'ip6.arpa', 'e164.arpa', 'home.arpa']) expect(code(n), n).toBe(1099);
    expect(policy.problem('co.uk')!.message).toBe('We were unable to identify co.uk as a registered domain. Please ensure you are providing the root domain and not any subdomains (e.g., example.com, not subdomain.example.com)');
  });

  it('allows registrable domains, names below them and reverse zones below in-addr.arpa / ip6.arpa', () => {
    for (const n of ['example.com', 'www.example.com', 'example.co.uk', 'me.github.io', '2.0.192.in-addr.arpa', '8.b.d.0.1.0.0.2.ip6.arpa', 'foo.xn--fiqs8s', 'example.test', 'zones.example', 'x.internal']) expect(code(n), n).toBeUndefined();
  });

  it('reserves the name servers\' domains and the listeners\' names, with everything below them (1093)', () => {
    for (const n of ['stratus.invalid', 'ns1.stratus.invalid', 'deep.ns2.stratus.invalid', 's3.files.example', 'bucket.s3.files.example']) expect(code(n), n).toBe(1093);
    expect(code('files.example')).toBeUndefined();
    expect(code('other.invalid')).toBeUndefined();
  });

  it('an allowed name exempts itself and what lies below it, nothing else', () => {
    const open = new NamePolicy({ nameservers: ['ns1.stratus.invalid'], listenerNames: [], allow: ['stratus.invalid', 'co.uk.'] });
    expect(open.problem('stratus.invalid')).toBeUndefined();
    expect(open.problem('ns1.stratus.invalid')).toBeUndefined();
    expect(open.problem('co.uk')).toBeUndefined();
    expect(open.problem('github.io')?.code).toBe(1099);
  });
});
