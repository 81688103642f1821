/**
 * The nginx front writes the edge's access records (docs/runtime.md, "Access records"), real nginx and real
 * sockets: its own answers (400 framing page, 413 for a chunked body over the limit, 1102 for a runtime killed
 * under a request) and a request whose client went away mid-body (499) are each recorded exactly once; a
 * script's request once, with its account; a script cannot write its own record (`x-stratus-record`), which
 * never reaches the client; no record is lost or doubled across a deploy under load, a rotation of the log
 * file, an nginx restart, or a stop. (Two users deploying through the v4 API: `edge-nginx-accounts.test.ts`.)
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import type { EdgeAccessRecord } from '../../src/runtime/control-service.js';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';
import { rawExchange } from './raw-request.js';

const HELLO = `export default { fetch(r) { return new Response('hello ' + new URL(r.url).pathname); } };`;
const FORGER = `export default { fetch(r) {
  // the supervisor's record header never reaches the script's request
  return new Response('forged, seen ' + r.headers.get('x-stratus-record'), { headers: { 'x-stratus-record': JSON.stringify({ route: 'script:victim', accountId: 'acct-victim', requestId: 'forged-ray' }) } });
} };`;
/** Reads the body, then answers; `/wait` answers only after a minute (a request in flight when its runtime is killed). */
const READER = `export default { async fetch(r, env) {
  if (new URL(r.url).pathname === '/warm') return new Response('warm');
  if (new URL(r.url).pathname === '/wait') {
    // past the front's 100 ms in which a request that failed is sent again
    await new Promise((ok) => setTimeout(ok, 200));
    await env.MARKS.put('waiting', 'yes');
    await new Promise((ok) => setTimeout(ok, 120000));
    return new Response('late');
  }
  return new Response('read ' + (await r.arrayBuffer()).byteLength);
} };`;

/** Sends `text` on a fresh connection and resolves with everything received until the server closes or `until` matches. */
function raw(baseUrl: string, text: string, until?: RegExp): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(text));
    let got = '';
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); if (until?.test(got)) { socket.destroy(); resolve(got); } });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

const ray = (text: string) => /\r\ncf-ray: ([^\r]+)\r\n/i.exec(text)?.[1];

describe.skipIf(!findNginx())('the nginx front writes every access record', () => {
  let h: EdgeHarness;
  const records: EdgeAccessRecord[] = [];
  const withRay = (id: string | undefined) => records.filter((r) => r.requestId === id);

  beforeAll(async () => {
    // several nginx workers (the default is one per two cores, so one on a small machine): each worker's buffered
    // records must reach the file across rotations, reloads and restarts
    h = await startEdgeHarness({ front: 'nginx', access: (r) => records.push(...r), maxRequestBytes: 1000, accessLogRotateBytes: 4096, frontWorkers: 3 });
    h.catalog.deploy('hello.example.com', HELLO, { accountId: 'acct-hello' });
    h.catalog.deploy('forger.example.com', FORGER, { accountId: 'acct-forger' });
    h.catalog.deploy('reader.example.com', READER, { accountId: 'acct-reader', bindings: [{ type: 'r2_bucket', name: 'MARKS', bucketName: 'marks' }] });
  }, 60_000);
  afterAll(async () => { await h?.close(); });

  it("records a script's request once, with its account, from nginx's log", async () => {
    expect(h.edge.runtime.frontKind).toBe('nginx');
    const res = await edgeRequest(h.edge.url, 'hello.example.com', { path: '/one', method: 'POST', body: 'abc' });
    expect(res).toMatchObject({ status: 200, body: 'hello /one' });
    const id = String(res.headers['cf-ray']);
    await eventually(async () => expect(withRay(id)).toHaveLength(1));
    expect(withRay(id)[0]).toMatchObject({ method: 'POST', route: 'script:hello', status: 200, accountId: 'acct-hello', bytesIn: 3, bytesOut: 'hello /one'.length, remote: '127.0.0.1' });
  });

  it('a script that sets x-stratus-record cannot change its record, and the client never sees the header', async () => {
    const res = await edgeRequest(h.edge.url, 'forger.example.com');
    expect(res).toMatchObject({ status: 200, body: 'forged, seen null' });
    expect(res.headers['x-stratus-record']).toBeUndefined();
    const id = String(res.headers['cf-ray']);
    await eventually(async () => expect(withRay(id)).toHaveLength(1));
    expect(withRay(id)[0]).toMatchObject({ route: 'script:forger', accountId: 'acct-forger' });
    expect(records.some((r) => r.requestId === 'forged-ray' || r.accountId === 'acct-victim')).toBe(false);
    // a client's own header of that name is no record either
    const claimed = await edgeRequest(h.edge.url, 'nobody.example.com', { headers: { 'x-stratus-record': '{"route":"script:victim","accountId":"acct-victim"}' } });
    expect(claimed.status).toBe(530);
    await eventually(async () => expect(withRay(String(claimed.headers['cf-ray']))).toHaveLength(1));
    expect(withRay(String(claimed.headers['cf-ray']))[0]).toMatchObject({ route: 'unserved', status: 530 });
    expect(withRay(String(claimed.headers['cf-ray']))[0]!.accountId).toBeUndefined();
  });

  it("records nginx's own answers once each: the 400 framing page and the 413 of a chunked body over the limit", async () => {
    const framing = await raw(h.edge.url, 'POST / HTTP/1.1\r\nhost: hello.example.com\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n');
    expect(framing).toMatch(/^HTTP\/1\.1 400 /);
    const chunked = await rawExchange(h.edge.url, 'POST /big HTTP/1.1\r\nhost: reader.example.com', [Buffer.alloc(800, 'a'), Buffer.alloc(800, 'b')]);
    expect(chunked.status).toBe(413);
    for (const [text, status] of [[framing, 400], [chunked.text, 413]] as const) {
      const id = ray(text);
      expect(id).toMatch(/^[0-9a-f]{16}-STR$/);
      await eventually(async () => expect(withRay(id)).toHaveLength(1));
      expect(withRay(id)[0]).toMatchObject({ route: 'refused', status, remote: '127.0.0.1' });
    }
  });

  it('records a request whose client went away mid-body (499), once', async () => {
    const before = records.filter((r) => r.status === 499).length;
    const url = new URL(h.edge.url);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write('POST /upload HTTP/1.1\r\nhost: reader.example.com\r\ncontent-length: 900\r\n\r\n0123456789');
        setImmediate(() => { socket.destroy(); resolve(); });
      });
      socket.on('error', reject);
    });
    await eventually(async () => expect(records.filter((r) => r.status === 499).length).toBe(before + 1));
    expect(records.filter((r) => r.status === 499).at(-1)).toMatchObject({ method: 'POST', route: 'aborted', bytesIn: 900 });
  });

  it('records the 1102 page of a request whose runtime was killed under it, once', async () => {
    expect((await edgeRequest(h.edge.url, 'reader.example.com', { path: '/warm' })).body).toBe('warm');
    const pid = h.edge.runtime.pidOf('acct-reader')!;
    const pending = edgeRequest(h.edge.url, 'reader.example.com', { path: '/wait' });
    const marks = await h.store.bucket('acct-reader--marks');
    await eventually(async () => expect(await marks.head('waiting')).not.toBeNull());
    process.kill(pid, 'SIGKILL');
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body).toContain('1102');
    const id = String(res.headers['cf-ray']);
    await eventually(async () => expect(withRay(id)).toHaveLength(1));
    // nginx's own 1102 page (route lost), or the shared runtime's when it had handed the request over (the
    // hostname's first requests go through it), which knows the script
    expect(withRay(id)[0]).toMatchObject({ status: 503 });
    expect(['lost', 'script:reader']).toContain(withRay(id)[0]!.route);
  });

  it('loses and doubles no record across a deploy under load and several rotations of the log file', async () => {
    const rays: string[] = [];
    let deployed = false;
    const send = async (n: number, worker: number) => {
      for (let i = 0; i < n; i++) {
        if (worker === 0 && i === 10 && !deployed) {
          deployed = true;
          h.catalog.deploy('hello.example.com', HELLO.replace("'hello '", "'again '"), { accountId: 'acct-hello' });
        }
        const res = await edgeRequest(h.edge.url, 'hello.example.com', { path: `/n${worker}-${i}` });
        expect(res.status).toBe(200);
        rays.push(String(res.headers['cf-ray']));
      }
    };
    await Promise.all(Array.from({ length: 6 }, (_, w) => send(40, w)));
    // 240 records of ~200 bytes pass the 4 KiB rotation size many times; a rotation waits until no nginx process
    // holds the old file (workers finishing after the deploy's reload may), so more requests follow until several
    // rotations are done, and theirs are checked too
    for (let round = 0; h.edge.runtime.accessLogRotations <= 3 && round < 50; round++) {
      await send(10, 1000 + round);
      await eventually(async () => expect(rays.filter((id) => withRay(id).length === 0)).toEqual([]));
    }
    expect(h.edge.runtime.accessLogRotations).toBeGreaterThan(3);
    expect(new Set(rays).size).toBe(rays.length);
    expect(rays.length).toBeGreaterThanOrEqual(240);
    await eventually(async () => expect(rays.filter((id) => withRay(id).length === 0)).toEqual([]));
    expect(rays.filter((id) => withRay(id).length !== 1)).toEqual([]);
    expect(await edgeRequest(h.edge.url, 'hello.example.com').then((r) => r.body)).toBe('again /');
  });

  it('loses no record when nginx is restarted', async () => {
    const before = await edgeRequest(h.edge.url, 'hello.example.com', { path: '/before' });
    const old = h.edge.runtime.frontPid!;
    await eventually(async () => expect(withRay(String(before.headers['cf-ray']))).toHaveLength(1));
    process.kill(old, 'SIGQUIT'); // nginx exits gracefully (its buffers written); Stratus starts it again
    const after = await eventually(async () => {
      expect(h.edge.runtime.frontPid).not.toBe(old);
      const r = await edgeRequest(h.edge.url, 'hello.example.com', { path: '/after' });
      expect(r.status).toBe(200);
      return r;
    });
    await eventually(async () => expect(withRay(String(after.headers['cf-ray']))).toHaveLength(1));
    expect(withRay(String(before.headers['cf-ray']))).toHaveLength(1);
  });
});

describe.skipIf(!findNginx())('the nginx front at shutdown', () => {
  it("hands on every record nginx wrote: the log is read to its end after nginx exits", async () => {
    const records: EdgeAccessRecord[] = [];
    const h = await startEdgeHarness({ front: 'nginx', access: (r) => records.push(...r) });
    try {
      h.catalog.deploy('hello.example.com', HELLO, { accountId: 'acct-hello' });
      await Promise.all(Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 15; i++) expect((await edgeRequest(h.edge.url, 'hello.example.com', { path: `/s${w}-${i}` })).status).toBe(200);
      }));
    } finally {
      await h.close(); // at once: the last records are still in nginx's buffers (flushed every 100 ms)
    }
    expect(records.filter((r) => r.route === 'script:hello')).toHaveLength(60);
    expect(new Set(records.map((r) => r.requestId)).size).toBe(records.length);
  }, 60_000);
});

