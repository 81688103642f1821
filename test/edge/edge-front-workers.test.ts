/**
 * The nginx front's worker processes (`--edge-front-workers`, docs/edge-performance.md, "Many cores"): by default one per two
 * usable cores (at least one), else the number given; both serve. The flag parses from the command line and the
 * environment.
 */
import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import { frontWorkerCount } from '../../src/runtime/front/nginx-config.js';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

describe.skipIf(!findNginx())('edge: the nginx front worker processes', () => {
  let h: EdgeHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('runs one worker per two cores by default and serves', async () => {
    h = await startEdgeHarness({ front: 'nginx' });
    h.catalog.deploy('w.example.com', 'export default { fetch() { return new Response("w"); } }');
    expect((await edgeRequest(h.edge.url, 'w.example.com')).body).toBe('w');
    expect(h.edge.runtime.nginxConfig()).toContain(`worker_processes ${frontWorkerCount(availableParallelism())};`);
    await eventually(async () => expect(h!.edge.runtime.frontPids()).toHaveLength(frontWorkerCount(availableParallelism())));
  }, 60_000);

  it('runs the number of workers given and serves', async () => {
    h = await startEdgeHarness({ front: 'nginx', frontWorkers: 3 });
    h.catalog.deploy('w.example.com', 'export default { fetch() { return new Response("three"); } }');
    expect((await edgeRequest(h.edge.url, 'w.example.com')).body).toBe('three');
    await eventually(async () => expect(h!.edge.runtime.frontPids()).toHaveLength(3));
  }, 60_000);
});

describe('--edge-front-workers', () => {
  it('parses from the command line and the environment, 0 (one per two cores) by default', () => {
    expect(loadConfig({}, {}).edgeFrontWorkers).toBe(0);
    expect(loadConfig({ 'edge-front-workers': '6' }, {}).edgeFrontWorkers).toBe(6);
    expect(loadConfig({}, { STRATUS_EDGE_FRONT_WORKERS: '2' }).edgeFrontWorkers).toBe(2);
    expect(() => loadConfig({ 'edge-front-workers': '-1' }, {})).toThrow();
  });
});
