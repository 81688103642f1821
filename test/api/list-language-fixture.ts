/** A zone with records covering every list filter (names, contents, comments, tags, proxied, TTLs). */
import type { TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';

/** Key of a record in assertions: `TYPE name` with the zone suffix removed. */
export const key = (r: { type: string; name: string }, zone: string): string =>
  `${r.type} ${r.name === zone ? '@' : r.name.slice(0, -(zone.length + 1))}`;

/** The records of the fixture zone (relative names). */
export function fixtureBodies(zone: string): Record<string, unknown>[] {
  return [
    { type: 'A', name: 'www', content: '192.0.2.10', proxied: true, comment: 'Web Front', tags: ['env:Prod', 'team:web'] },
    { type: 'A', name: 'api', content: '192.0.2.11', ttl: 120, comment: 'API server', tags: ['env:staging'] },
    { type: 'AAAA', name: 'www', content: '2001:db8::1', ttl: 600, tags: ['env:prod'] },
    { type: 'CNAME', name: 'shop', content: `www.${zone}`, tags: ['team:Sales'] },
    { type: 'TXT', name: '_acme-challenge.www', content: 'TokenABC_123' },
    { type: 'TXT', name: '@', content: 'v=spf1 include:_spf.example ~all', comment: 'spf' },
    { type: 'MX', name: '@', content: `mail.${zone}`, priority: 10 },
    { type: 'A', name: 'mail', content: '192.0.2.25', ttl: 300 },
  ];
}

/** Creates the fixture zone; returns its id. */
export async function createFixtureZone(server: TestServer, zone: string): Promise<string> {
  const zoneId = await createZone(server, zone);
  for (const body of fixtureBodies(zone)) {
    const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, body);
    if (res.status !== 200) throw new Error(`fixture ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
  }
  return zoneId;
}
