/**
 * A Service Worker script on the edge behaves as the classic script it is in production: its top-level `var`
 * and function declarations are properties of the global object (shared with the declarations), its top-level
 * `this` is the global object, and globals workerd and the bindings provide are not disturbed by its own `var`s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { edgeRequest } from './request.js';
import { MemoryCatalog } from './memory-catalog.js';

const SCRIPT = `var hits = 0;
var GREETING;
var topThis = this;
function describeGlobals() {
  return { hits: globalThis.hits, sameThis: topThis === globalThis, fn: typeof globalThis.describeGlobals, greeting: GREETING, fetchKind: typeof fetch };
}
addEventListener('fetch', (event) => {
  hits++;
  globalThis.hits += 10;
  event.respondWith(Response.json(describeGlobals()));
});`;

describe('Service Worker scripts as classic scripts', () => {
  let server: TestServer;
  const catalog = new MemoryCatalog();

  beforeAll(async () => {
    // one process per runtime: the second request must reach the isolate the first one changed (with two, as in
    // production, consecutive requests may run in different isolates)
    server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'edge-replicas': '1' }, edgeCatalog: catalog });
    catalog.deploy('classic.example.com', SCRIPT, { mainType: 'commonjs', bindings: [{ type: 'plain_text', name: 'GREETING', text: 'hello' }] });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('puts top-level declarations on globalThis, shares them both ways, and keeps the bindings and web APIs', async () => {
    const first = await edgeRequest(server.running.edgeUrl!, 'classic.example.com');
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ hits: 11, sameThis: true, fn: 'function', greeting: 'hello', fetchKind: 'function' });
    expect(JSON.parse((await edgeRequest(server.running.edgeUrl!, 'classic.example.com')).body)).toMatchObject({ hits: 22 });
  });
});
