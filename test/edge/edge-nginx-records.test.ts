/** smoke */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';
import type { EdgeAccessRecord } from '../../src/runtime/control-service.js';

describe('smoke', () => {
  let h: EdgeHarness;
  const records: EdgeAccessRecord[] = [];
  beforeAll(async () => {
    h = await startEdgeHarness({ front: 'nginx', access: (r) => records.push(...r) });
  }, 60_000);
  afterAll(async () => { await h?.close(); });
  it('records', async () => {
    h.catalog.deploy('app.example.com', `export default { fetch() { return new Response('hi', { headers: { 'x-stratus-record': '{"route":"script:evil","accountId":"other"}' } }); } }`, { accountId: 'acct-a' });
    const r = await edgeRequest(h.edge.url, 'app.example.com', {});
    console.log(r.status, r.headers, r.body);
    await eventually(async () => expect(records.length).toBeGreaterThan(0));
    console.log(records);
    console.log(h.edge.runtime.nginxConfig());
  });
});
