/** One valid create body per record type (zone `zoneName`), with the content the API must return where it is fixed. */
export interface RecordSample {
  type: string;
  body: Record<string, unknown>;
  /** Expected full name. */
  name: string;
  /** Expected content, when the reference fixes it. */
  content?: string;
  /** A second valid value (for PATCH), as body fields. */
  change: Record<string, unknown>;
}

const HEX64 = 'a'.repeat(64);
const KEY = 'mDMEXEcE6RYJKwYBBAHaRw8BAQdArjWwk3FAqyiFbFBKT4TzXcVBqPTB3gmzlC/Ubn0w3Kw=';

/** Samples of every type the API accepts. */
export function recordSamples(zone: string): RecordSample[] {
  return [
    { type: 'A', body: { name: 'a', content: '192.0.2.1' }, name: `a.${zone}`, content: '192.0.2.1', change: { content: '192.0.2.2' } },
    { type: 'AAAA', body: { name: 'aaaa', content: '2001:DB8:0:0:0::1' }, name: `aaaa.${zone}`, content: '2001:db8::1', change: { content: '2001:db8::2' } },
    { type: 'CNAME', body: { name: 'www', content: 'Target.Example.NET.' }, name: `www.${zone}`, content: 'target.example.net', change: { content: 'other.example.net' } },
    { type: 'MX', body: { name: '@', content: 'mx.example.net', priority: 10 }, name: zone, content: 'mx.example.net', change: { priority: 20 } },
    { type: 'NS', body: { name: 'delegated', content: 'ns1.example.net' }, name: `delegated.${zone}`, content: 'ns1.example.net', change: { content: 'ns2.example.net' } },
    { type: 'OPENPGPKEY', body: { name: 'pgp', content: KEY }, name: `pgp.${zone}`, content: KEY, change: { content: 'AQID' } },
    { type: 'PTR', body: { name: '1', content: 'host.example.net' }, name: `1.${zone}`, content: 'host.example.net', change: { content: 'host2.example.net' } },
    { type: 'TXT', body: { name: 'txt', content: 'hello world' }, name: `txt.${zone}`, content: '"hello world"', change: { content: '"quoted" "twice"' } },
    { type: 'CAA', body: { name: '@', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } }, name: zone, change: { data: { flags: 0, tag: 'issuewild', value: 'letsencrypt.org' } } },
    { type: 'CERT', body: { name: 'cert', data: { type: 9, key_tag: 0, algorithm: 8, certificate: 'AQID' } }, name: `cert.${zone}`, change: { data: { type: 9, key_tag: 1, algorithm: 8, certificate: 'AQID' } } },
    { type: 'DNSKEY', body: { name: '@', data: { flags: 257, protocol: 3, algorithm: 13, public_key: KEY } }, name: zone, change: { data: { flags: 256, protocol: 3, algorithm: 13, public_key: KEY } } },
    { type: 'DS', body: { name: 'child', data: { key_tag: 2371, algorithm: 13, digest_type: 2, digest: HEX64 } }, name: `child.${zone}`, change: { data: { key_tag: 2372, algorithm: 13, digest_type: 2, digest: HEX64 } } },
    { type: 'HTTPS', body: { name: 'svc', data: { priority: 1, target: '.', value: 'alpn="h3,h2"' } }, name: `svc.${zone}`, change: { data: { priority: 2, target: '.', value: 'alpn="h2"' } } },
    { type: 'LOC', body: { name: 'loc', data: { lat_degrees: 37, lat_minutes: 46, lat_seconds: 46, lat_direction: 'N', long_degrees: 122, long_minutes: 23, long_seconds: 35, long_direction: 'W', altitude: 0, size: 100, precision_horz: 0, precision_vert: 0 } }, name: `loc.${zone}`, change: { data: { lat_degrees: 38, lat_minutes: 46, lat_seconds: 46, lat_direction: 'N', long_degrees: 122, long_minutes: 23, long_seconds: 35, long_direction: 'W', altitude: 0, size: 100, precision_horz: 0, precision_vert: 0 } } },
    { type: 'NAPTR', body: { name: 'naptr', data: { order: 100, preference: 10, flags: 'S', service: 'SIP+D2U', regex: '', replacement: `_sip._udp.${zone}` } }, name: `naptr.${zone}`, change: { data: { order: 101, preference: 10, flags: 'S', service: 'SIP+D2U', regex: '', replacement: `_sip._udp.${zone}` } } },
    { type: 'SMIMEA', body: { name: 'smimea', data: { usage: 3, selector: 0, matching_type: 1, certificate: HEX64 } }, name: `smimea.${zone}`, change: { data: { usage: 3, selector: 1, matching_type: 1, certificate: HEX64 } } },
    { type: 'SRV', body: { name: '_sip._tcp', data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.net' } }, name: `_sip._tcp.${zone}`, content: '5 5060 sip.example.net', change: { data: { priority: 10, weight: 6, port: 5060, target: 'sip.example.net' } } },
    { type: 'SSHFP', body: { name: 'host', data: { algorithm: 4, type: 2, fingerprint: HEX64 } }, name: `host.${zone}`, change: { data: { algorithm: 1, type: 2, fingerprint: HEX64 } } },
    { type: 'SVCB', body: { name: '_dns', data: { priority: 1, target: 'dns.example.net', value: 'alpn="h2"' } }, name: `_dns.${zone}`, change: { data: { priority: 2, target: 'dns.example.net', value: 'alpn="h2"' } } },
    { type: 'TLSA', body: { name: '_443._tcp', data: { usage: 3, selector: 1, matching_type: 1, certificate: HEX64 } }, name: `_443._tcp.${zone}`, change: { data: { usage: 2, selector: 1, matching_type: 1, certificate: HEX64 } } },
    { type: 'URI', body: { name: '_http._tcp', priority: 10, data: { target: 'http://example.com/', weight: 20 } }, name: `_http._tcp.${zone}`, change: { data: { target: 'http://example.com/other', weight: 20 } } },
  ];
}
