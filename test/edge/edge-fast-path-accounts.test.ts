/**
 * The fast path with the control plane's catalog, two users with their own tokens: each deploys a Worker of the
 * same name on a route of its own zone through the v4 API; nginx compiles each hostname to its own account's
 * version socket (in that account's runtime), and a request for A's hostname never reaches B's version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { eventually } from './harness.js';
import { edgeRequest } from './request.js';

interface Who { email: string; key: string }

const nginx = findNginx();

describe.skipIf(!nginx)('the fast path, two accounts through the v4 API', () => {
  let server: TestServer;
  let a: Who;
  let b: Who;

  const v4 = async (who: Who, method: string, p: string, body?: unknown, type = 'application/json') => {
    const res = await fetch(`${server.apiBase}${p}`, { method, headers: { 'x-auth-email': who.email, 'x-auth-key': who.key, 'content-type': type }, body: typeof body === 'string' || body === undefined ? body : JSON.stringify(body) });
    return (await res.json()) as { success: boolean; result: any; errors: unknown[] };
  };

  /** A zone of `who`'s account, a Worker `same` answering `text`, routed on the whole zone. */
  const deploy = async (who: Who, zone: string, text: string) => {
    const account = (await v4(who, 'GET', '/accounts')).result[0].id as string;
    const z = await v4(who, 'POST', '/zones', { account: { id: account }, name: zone, type: 'full' });
    expect(z.success, JSON.stringify(z.errors)).toBe(true);
    const boundary = 'stratus-fast-path';
    const source = `export default { fetch() { return new Response(${JSON.stringify(text)}); } };`;
    const body = [`--${boundary}`, 'Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json', '',
      JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' }), `--${boundary}`,
      'Content-Disposition: form-data; name="index.js"; filename="index.js"', 'Content-Type: application/javascript+module', '', source, `--${boundary}--`, ''].join('\r\n');
    const put = await v4(who, 'PUT', `/accounts/${account}/workers/scripts/same`, body, `multipart/form-data; boundary=${boundary}`);
    expect(put.success, JSON.stringify(put.errors)).toBe(true);
    const route = await v4(who, 'POST', `/zones/${z.result.id}/workers/routes`, { pattern: `${zone}/*`, script: 'same' });
    expect(route.success, JSON.stringify(route.errors)).toBe(true);
  };

  beforeAll(async () => {
    server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'edge-front': 'nginx', 'edge-fast-path': 'on' } });
    a = { email: server.email, key: server.key };
    const second = await addUser(server, 'fast-second@example.com');
    b = { email: second.email, key: second.key };
    await deploy(a, 'fast-a.test', 'from A');
    await deploy(b, 'fast-b.test', 'from B');
  }, 120_000);
  afterAll(async () => { await server?.stop(); });

  /** The socket nginx's fast path sends `host`'s requests to (its route `/*`), once compiled. */
  const socketOf = (host: string): string => {
    const config = server.running.edge!.runtime.nginxConfig()!;
    const variable = new RegExp(`\\n\\s+${host.replace(/\./g, '\\.')} (\\$stratus_fh\\d+);`).exec(config)![1]!;
    const upstream = new RegExp(`map "\\$scheme:\\$request_uri" \\${variable} \\{\\s+"~\\^https\\?:/" (stratus_v\\d+);`).exec(config)![1]!;
    return new RegExp(`upstream ${upstream} \\{ (?:least_conn; )?server unix:(\\S+) `).exec(config)![1]!;
  };

  it("serves each account's hostname from its own version's socket, in its own runtime", async () => {
    const url = server.running.edgeUrl!;
    const [sa, sb] = await eventually(async () => {
      expect((await edgeRequest(url, 'fast-a.test', { path: '/x' })).body).toBe('from A');
      expect((await edgeRequest(url, 'fast-b.test', { path: '/y' })).body).toBe('from B');
      return [socketOf('fast-a.test'), socketOf('fast-b.test')];
    });
    expect(sa).not.toBe(sb);
    // sockets are named <runtime slot>-<generation>-<n>: the two accounts' runtimes differ
    const slot = (s: string) => s.split('/').at(-1)!.split('-')[0];
    expect(slot(sa)).not.toBe(slot(sb));
    for (let i = 0; i < 20; i++) {
      expect((await edgeRequest(url, 'fast-a.test', { path: `/p${i}` })).body).toBe('from A');
      expect((await edgeRequest(url, 'fast-b.test', { path: `/p${i}` })).body).toBe('from B');
    }
  });

  it("lets neither token route the other's zone", async () => {
    const zones = await v4(b, 'GET', '/zones?name=fast-a.test');
    expect(zones.result).toEqual([]);
  });
});
