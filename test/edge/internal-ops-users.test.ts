/**
 * The generations' internal operations (ping, drain, flush, hand-off; the watchdog's pings go through
 * runtime/ping-client.ts) under `stratus serve` with two real users, each with a Worker deployed through the v4
 * API in its own account. They answer only the per-process secret that Node holds: the second user's global key
 * and API token, and the first user's own, whether sent as the secret or as the v4 API's credentials, are refused
 * (403, the body `forbidden`, naming no account, script, version or secret) through the edge and at the first
 * user's generations' internal ports; a hand-off naming the other account's version runs nothing of it, and both
 * users are served as before (nothing drained or flushed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { eventually } from './harness.js';
import { edgeRequest } from './request.js';
import { listeningPorts } from './listening-ports.js';

interface Who { email: string; key: string; accountId: string }

let server: TestServer;
let first: Who;
let second: Who;
let secondToken: string;
let firstToken: string;
let secondVersion: string;

/** A v4 call with `who`'s global key. */
async function v4(who: Who, method: string, p: string, body?: BodyInit | object): Promise<any> {
  const form = body instanceof FormData;
  const res = await fetch(`${server.apiBase}${p}`, {
    method,
    headers: { 'x-auth-email': who.email, 'x-auth-key': who.key, ...(body === undefined || form ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
  });
  return res.json();
}

/** Zone `name` with a proxied `www` and `script` on `www.NAME/*`, in `who`'s account: the version id deployed. */
async function deploy(who: Who, name: string, script: string, answer: string): Promise<string> {
  const zone = await v4(who, 'POST', '/zones', { account: { id: who.accountId }, name, type: 'full' });
  expect(zone.success, JSON.stringify(zone.errors)).toBe(true);
  expect((await v4(who, 'POST', `/zones/${zone.result.id}/dns_records`, { type: 'A', name: `www.${name}`, content: '192.0.2.1', proxied: true, ttl: 1 })).success).toBe(true);
  const form = new FormData();
  form.set('metadata', new Blob([JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' })], { type: 'application/json' }));
  form.set('index.js', new Blob([`export default { fetch() { return new Response(${JSON.stringify(answer)}); } };`], { type: 'application/javascript+module' }), 'index.js');
  const put = await v4(who, 'PUT', `/accounts/${who.accountId}/workers/scripts/${script}`, form);
  expect(put.success, JSON.stringify(put.errors)).toBe(true);
  expect((await v4(who, 'POST', `/zones/${zone.result.id}/workers/routes`, { pattern: `www.${name}/*`, script })).success).toBe(true);
  const versions = await v4(who, 'GET', `/accounts/${who.accountId}/workers/scripts/${script}/versions`);
  expect(versions.success, JSON.stringify(versions.errors)).toBe(true);
  return versions.result.items[0].id as string;
}

/** An API token of `who`'s own (Zone Read on every zone). */
async function tokenOf(who: Who): Promise<string> {
  const made = await v4(who, 'POST', '/user/tokens', {
    name: 'internal-ops probe',
    policies: [{ effect: 'allow', permission_groups: [{ id: 'c8fed203ed3043cba015a93ad1616f1f' }], resources: { 'com.cloudflare.api.account.zone.*': '*' } }],
  });
  expect(made.success, JSON.stringify(made.errors)).toBe(true);
  return made.result.value as string;
}

/** Every credential a user holds, sent as the internal secret and as the v4 API's own headers. */
function credentialSets(): Record<string, string>[] {
  const sets: Record<string, string>[] = [];
  for (const secret of [second.key, secondToken, first.key, firstToken]) {
    sets.push({ 'x-stratus-internal': secret });
    sets.push({ 'x-stratus-internal': secret, authorization: `Bearer ${secret}`, 'x-auth-email': second.email, 'x-auth-key': secret });
  }
  return sets;
}

const operations = (): Record<string, string>[] => [
  { 'x-stratus-op': 'ping' }, { 'x-stratus-op': 'drain' }, { 'x-stratus-op': 'flush' },
  { 'x-stratus-op': 'handoff', 'x-stratus-url': 'http://www.second-ops.test/', 'x-stratus-ray': 'aaaaaaaaaaaaaaaa',
    'x-stratus-target': JSON.stringify({ kind: 'script', accountId: second.accountId, scriptName: 'probe', versionId: secondVersion }) },
];

/** The answer must refuse and reveal nothing of either user: no account, version, key, token or secret. */
function expectRefusedBlind(status: number, body: string): void {
  expect(status).toBe(403);
  expect(body).toBe('forbidden');
}

async function bothServed(): Promise<void> {
  expect((await edgeRequest(server.running.edgeUrl!, 'www.first-ops.test')).body).toBe('first user serves');
  expect((await edgeRequest(server.running.edgeUrl!, 'www.second-ops.test')).body).toBe("second user's own answer");
}

beforeAll(async () => {
  server = await startTestServer({ flags: { edge: '127.0.0.1:0' } });
  const accounts = await fetch(`${server.apiBase}/accounts`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } }).then((r) => r.json()) as { result: { id: string }[] };
  first = { email: server.email, key: server.key, accountId: accounts.result[0]!.id };
  const user = await addUser(server, 'internal-ops-second@example.com');
  second = { email: user.email, key: user.key, accountId: user.accountId };
  await deploy(first, 'first-ops.test', 'probe', 'first user serves');
  secondVersion = await deploy(second, 'second-ops.test', 'probe', "second user's own answer");
  firstToken = await tokenOf(first);
  secondToken = await tokenOf(second);
  await eventually(bothServed);
}, 90_000);

afterAll(async () => { await server?.stop(); });

describe("the generations' internal operations, asked with a user's key or token", () => {
  it("refuses the second user's (and the first user's) key and token through the edge, on the first user's hostname", async () => {
    for (const creds of credentialSets()) {
      for (const op of operations()) {
        const res = await edgeRequest(server.running.edgeUrl!, 'www.first-ops.test', { headers: { ...creds, ...op } });
        expectRefusedBlind(res.status, res.body);
      }
    }
    await bothServed();
  });

  it("refuses them at the first user's generations' internal ports, running nothing of the second user's version", async () => {
    const pids = await eventually(async () => {
      const p = server.running.edge!.runtime.pidsOf(first.accountId).filter((pid): pid is number => pid !== undefined);
      expect(p.length).toBeGreaterThan(0);
      return p;
    });
    const ports = pids.flatMap(listeningPorts);
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) {
      for (const creds of credentialSets()) {
        for (const op of operations()) {
          const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { host: 'www.first-ops.test', ...creds, ...op } });
          expectRefusedBlind(res.status, await res.text());
        }
      }
    }
    await bothServed();
  });
});
