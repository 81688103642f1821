/**
 * The fast path reads again, on a catalog change, only the routes of the hostnames whose zones the change
 * touched (`EdgeCatalog.routeChanges`), and every learned hostname's when the catalog cannot tell what changed;
 * a deploy still serves at once. The test catalog counts its route reads per hostname.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import type { EdgeAccessRecord } from '../../src/runtime/control-service.js';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

const VERSION = (n: number) => `export default { fetch() { return new Response('v${n}'); } };`;

describe.skipIf(!findNginx())('edge: the fast path after a catalog change', () => {
  let h: EdgeHarness;
  const records: EdgeAccessRecord[] = [];

  beforeAll(async () => {
    h = await startEdgeHarness({ front: 'nginx', fastPath: true, access: (r) => records.push(...r) });
  }, 60_000);
  afterAll(async () => { await h?.close(); });

  /** Waits until `host` answers `body` on the fast path (nginx's access record says so). */
  async function servedFast(host: string, body: string): Promise<void> {
    await eventually(async () => {
      const a = await edgeRequest(h.edge.url, host);
      expect(a.body).toBe(body);
      const record = await eventually(async () => {
        const found = records.find((r) => r.requestId === a.headers['cf-ray']);
        expect(found).toBeDefined();
        return found!;
      });
      expect(record.fast).toBe(true);
    });
  }

  it('reads again only the hostnames of the zone a deploy touched, and all of them when the change is unknown', async () => {
    const hosts = ['one.example.com', 'two.example.com', 'three.example.com'];
    for (const [i, host] of hosts.entries()) {
      h.catalog.deploy(host, VERSION(i), { accountId: 'acct-a' });
      await servedFast(host, `v${i}`);
    }
    // let the refreshes the first deploys started finish, then count from here
    await h.edge.runtime.frontSettled();
    const reads = () => Object.fromEntries(hosts.map((x) => [x, h.catalog.routeReads.get(x) ?? 0]));
    // (the fast path also reads every hostname every 30 s: an attempt that met that read is made again)
    let after = reads();
    for (let attempt = 0; ; attempt++) {
      const before = reads();
      h.catalog.deploy('two.example.com', VERSION(20 + attempt), { accountId: 'acct-a' });
      await servedFast('two.example.com', `v${20 + attempt}`);
      after = reads();
      expect(after['two.example.com']).toBeGreaterThan(before['two.example.com']!);
      const untouched = after['one.example.com'] === before['one.example.com'] && after['three.example.com'] === before['three.example.com'];
      if (untouched || attempt === 2) {
        expect(after['one.example.com']).toBe(before['one.example.com']);
        expect(after['three.example.com']).toBe(before['three.example.com']);
        break;
      }
    }
    // a change the catalog cannot place (a record, a zone setting): every learned hostname is read again
    h.catalog.changed();
    await eventually(async () => {
      const now = reads();
      for (const host of hosts) expect(now[host]).toBeGreaterThan(after[host]!);
    });
    // and a second account's hostname, learned meanwhile, is as unaffected by the first account's deploys
    h.catalog.deploy('other.example.net', VERSION(5), { accountId: 'acct-b' });
    await servedFast('other.example.net', 'v5');
    for (let attempt = 0; ; attempt++) {
      const otherBefore = h.catalog.routeReads.get('other.example.net')!;
      h.catalog.deploy('one.example.com', VERSION(10 + attempt), { accountId: 'acct-a' });
      await servedFast('one.example.com', `v${10 + attempt}`);
      if (h.catalog.routeReads.get('other.example.net') === otherBefore || attempt === 2) {
        expect(h.catalog.routeReads.get('other.example.net')).toBe(otherBefore);
        break;
      }
    }
    await servedFast('other.example.net', 'v5');
  }, 60_000);
});
