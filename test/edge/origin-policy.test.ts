/**
 * The origin leg obeys the edge's outbound policy (issue 34, part 3): a proxied record whose content is loopback
 * (127.0.0.1, 0.0.0.0, ::ffff:127.0.0.1) or a CNAME to `localhost` gets production's error page (1000 for an
 * address, 1002 for a name resolving to one; 403) and a loopback listener on `--origin-port` receives nothing;
 * with `--origin-allow 127.0.0.0/8` the same record is proxied. Private and link-local addresses (10.0.0.1,
 * 169.254.169.254) are refused by the policy check before any connection: src/runtime/origin-proxy.test.ts and
 * src/edge/address-policy.test.ts (no traffic leaves loopback here).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { edgeRequest } from './request.js';
import { eventually } from './harness.js';

const ZONE = 'origin-policy.test';
let origin: http.Server;
let originPort: number;
let connections = 0;
let requests = 0;

beforeAll(async () => {
  origin = http.createServer((_req, res) => { requests++; res.end('origin answered'); });
  origin.on('connection', () => { connections++; });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originPort = (origin.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => origin?.close(r));
});

/** Creates the zone and its proxied records on a server. */
async function records(server: TestServer): Promise<void> {
  const zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  for (const [name, type, content] of [
    ['loop', 'A', '127.0.0.1'], ['zero', 'A', '0.0.0.0'], ['mapped', 'AAAA', '::ffff:127.0.0.1'], ['local', 'CNAME', 'localhost'],
  ] as const) {
    await sdk.dns.records.create({ zone_id: zoneId, type, name: `${name}.${ZONE}`, content, proxied: true, ttl: 1 } as never);
  }
}

describe('without --origin-allow', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'origin-port': String(originPort) } });
    await records(server);
  }, 60_000);
  afterAll(async () => { await server?.stop(); });

  it('answers 1000 (403) for loopback and 0.0.0.0 contents, and 1002 for a CNAME to localhost; the origin gets nothing', async () => {
    const edge = server.running.edgeUrl!;
    for (const [name, code] of [['loop', 1000], ['zero', 1000], ['mapped', 1000], ['local', 1002]] as const) {
      const res = await eventually(async () => {
        const r = await edgeRequest(edge, `${name}.${ZONE}`, { path: '/admin', method: 'POST', body: 'secret' });
        expect(r.status, name).toBe(403);
        return r;
      });
      expect(res.body, name).toContain(`<span>${code}</span>`);
      expect(res.body, name).toContain(code === 1000 ? 'DNS points to prohibited IP' : 'DNS points to Prohibited IP');
      expect(res.headers['cf-ray']).toMatch(/-STR$/);
    }
    expect([connections, requests]).toEqual([0, 0]);
  });
});

describe('with --origin-allow 127.0.0.0/8', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'origin-port': String(originPort), 'origin-allow': '127.0.0.0/8' } });
    await records(server);
  }, 60_000);
  afterAll(async () => { await server?.stop(); });

  it('proxies the loopback record and the IPv4-mapped one; 0.0.0.0 stays refused (0.0.0.0/8 is not in the range)', async () => {
    const edge = server.running.edgeUrl!;
    for (const name of ['loop', 'mapped']) {
      await eventually(async () => {
        const r = await edgeRequest(edge, `${name}.${ZONE}`, { path: '/' });
        expect([r.status, r.body], name).toEqual([200, 'origin answered']);
      });
    }
    expect(requests).toBe(2);
    const zero = await edgeRequest(edge, `zero.${ZONE}`, { path: '/' });
    expect([zero.status, zero.body.includes('<span>1000</span>')]).toEqual([403, true]);
    expect(requests).toBe(2);
  });
});
