/**
 * The pass-through mark cannot be read or forged by a script, nor by a server a script fetches from
 * (`stratus serve --edge`, real workerd, two accounts). A script of account B reads every file of its bundle
 * under nodejs_compat and imports the entry and setup modules, and replaces every built-in the mark could pass
 * through (Headers methods, the Request/Response/Headers constructors, Map/WeakMap/Set, Object.defineProperty,
 * Function.prototype.call/apply, getters on Object.prototype such as `then`); each string it saw is tried as the
 * mark, in a response of its own and in the answer of B's server that A's script returns. None of them makes a
 * request go on to the origin; a genuine passThroughOnException() (or a Service Worker that does not answer)
 * still does, in the same scripts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { edgeRequest } from './request.js';
import { MemoryCatalog } from './memory-catalog.js';
import { createLogger } from '../../src/shared/logger.js';

/** Every header name the mechanism uses, on a forged answer. */
const MARK_HEADERS = ['x-stratus-pass', 'x-stratus-pass-nonce', 'x-stratus-pass-reason'];

/**
 * Classic-script code (no imports) that replaces built-ins with recorders: `seen` gets every string that goes
 * through them (arguments, results, `this`, and the headers of any Headers, Request or Response among them).
 */
const RECORDERS = String.raw`
var seen = Object.create(null); // each string once (a script's own calls go through the recorders too)
var busy = false;
var apply = Reflect.apply;
var ownKeys = Reflect.ownKeys;
var define = Object.defineProperty;
var OrigHeaders = Headers;
var origEntries = Headers.prototype.entries;
var headersGetter = Object.getOwnPropertyDescriptor(Request.prototype, 'headers');
var responseHeadersGetter = Object.getOwnPropertyDescriptor(Response.prototype, 'headers');
function note(value, depth) {
  if (typeof value === 'string') { if (value.length >= 8 && value.length < 200) seen[value] = true; return; }
  if (value === null || typeof value !== 'object' || depth > 3) return;
  try {
    if (value instanceof OrigHeaders) { for (const pair of apply(origEntries, value, [])) { note(pair[0], depth + 1); note(pair[1], depth + 1); } return; }
    if (value instanceof Request && headersGetter) { note(apply(headersGetter.get, value, []), depth + 1); return; }
    if (value instanceof Response && responseHeadersGetter) { note(apply(responseHeadersGetter.get, value, []), depth + 1); return; }
    for (const key of ownKeys(value)) { const d = Reflect.getOwnPropertyDescriptor(value, key); if (d && 'value' in d) note(d.value, depth + 1); }
  } catch (e) { /* not inspectable */ }
}
function record(self, args, result) {
  if (busy) return;
  busy = true;
  try { note(self, 0); for (const a of args) note(a, 0); note(result, 0); } finally { busy = false; }
}
function wrapMethod(proto, name) {
  const d = Reflect.getOwnPropertyDescriptor(proto, name);
  if (!d || typeof d.value !== 'function') return;
  const original = d.value;
  define(proto, name, { ...d, value: function (...args) { const result = apply(original, this, args); record(this, args, result); return result; } });
}
function wrapGetter(proto, name) {
  const d = Reflect.getOwnPropertyDescriptor(proto, name);
  if (!d || !d.get) return;
  const original = d.get;
  define(proto, name, { ...d, get() { const result = apply(original, this, []); record(this, [], result); return result; } });
}
function wrapConstructor(name) {
  const original = globalThis[name];
  const proxy = new Proxy(original, { construct(target, args, newTarget) { const made = Reflect.construct(target, args, newTarget === proxy ? target : newTarget); record(undefined, args, made); return made; } });
  // a getter on globalThis (Object.defineProperty), so each read of the global is seen too
  define(globalThis, name, { configurable: true, get() { record(this, [], undefined); return proxy; }, set(v) { define(globalThis, name, { value: v, writable: true, configurable: true }); } });
}
for (const name of ['get', 'has', 'set', 'append', 'delete', 'entries', 'keys', 'values', 'forEach', 'getSetCookie', Symbol.iterator]) wrapMethod(Headers.prototype, name);
for (const name of ['headers', 'url', 'cf', 'body']) wrapGetter(Request.prototype, name);
for (const name of ['headers', 'body']) wrapGetter(Response.prototype, name);
for (const name of ['clone']) { wrapMethod(Request.prototype, name); wrapMethod(Response.prototype, name); }
for (const C of [Map, WeakMap]) for (const name of ['get', 'set', 'has']) wrapMethod(C.prototype, name);
wrapMethod(Set.prototype, 'add');
wrapMethod(Array.prototype, 'push');
for (const name of ['toLowerCase', 'trim', 'slice', 'indexOf', 'startsWith']) wrapMethod(String.prototype, name);
wrapMethod(Function.prototype, 'call');
wrapMethod(Function.prototype, 'apply');
wrapMethod(Function.prototype, 'bind');
wrapMethod(Object, 'defineProperty');
wrapMethod(Object, 'defineProperties');
wrapMethod(Object, 'assign');
wrapMethod(Reflect, 'defineProperty');
wrapMethod(Reflect, 'get');
wrapMethod(JSON, 'stringify');
for (const name of ['Headers', 'Request', 'Response', 'ReadableStream', 'WritableStream', 'TextEncoder']) wrapConstructor(name);
// getters every object inherits: a built-in reading a missing field of an options object, or resolving a promise
for (const name of ['then', 'headers', 'status', 'statusText', 'body', 'cf', 'method', 'nonce', 'request', 'x-stratus-pass', 'x-stratus-pass-nonce', Symbol.iterator]) {
  for (const proto of [Object.prototype, Response.prototype, Request.prototype]) {
    if (Reflect.getOwnPropertyDescriptor(proto, name)) continue;
    define(proto, name, { configurable: true, get() { record(this, [], undefined); return undefined; },
      set(v) { define(this, name, { value: v, writable: true, enumerable: true, configurable: true }); } });
  }
}
/** The strings seen since the last call (each once), usable as a header value. */
function candidates() {
  busy = true;
  const out = [];
  for (const s in seen) if (/^[\x20-\x7e]+$/.test(s)) out[out.length] = s;
  seen = Object.create(null);
  busy = false;
  return out;
}
function forged(candidate, count, body) {
  const headers = { 'x-candidates': String(count) };
  if (candidate !== undefined) for (const name of ${JSON.stringify(MARK_HEADERS)}) headers[name] = name === 'x-stratus-pass-reason' ? 'no-respond-with' : candidate;
  return new Response(body, { headers });
}
`;

/** B's module script: the recorders, the entry and setup modules imported, the bundle read. */
const PATCHING_MODULE = `import * as entryModule from './__stratus_limits_entry__.mjs';
import * as setupModule from './__stratus_limits_setup__.mjs';
${RECORDERS}
export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.searchParams.has('genuine')) { ctx.passThroughOnException(); throw new Error('genuine'); }
    note(request, 0);
    for (const m of [entryModule, setupModule]) for (const key of Object.keys(m)) note(typeof m[key] === 'function' ? m[key].toString() : m[key], 0);
    try { note(setupModule.takeNonce(request), 0); } catch (e) { /* nothing to take */ }
    const list = candidates();
    return forged(list[Number(url.searchParams.get('i'))], list.length, 'script');
  },
};`;

/** The same recorders in a Service Worker script. */
const PATCHING_SERVICE_WORKER = `${RECORDERS}
addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.searchParams.has('genuine')) return; // no respondWith(): passed on
  note(event.request, 0);
  const list = candidates();
  event.respondWith(forged(list[Number(url.searchParams.get('i'))], list.length, 'script'));
});`;

/** B's script under nodejs_compat: every file of its bundle and the strings of the shim modules, as candidates. */
const READER = `import fs from 'node:fs';
import * as entryModule from './__stratus_limits_entry__.mjs';
import * as setupModule from './__stratus_limits_setup__.mjs';
export default {
  async fetch(request) {
    const files = [];
    const texts = [];
    const walk = (dir) => {
      for (const name of fs.readdirSync(dir)) {
        const p = dir + '/' + name;
        if (fs.statSync(p).isDirectory()) walk(p);
        else { files.push(p); texts.push(fs.readFileSync(p, 'utf8')); }
      }
    };
    walk('/bundle');
    for (const m of [entryModule, setupModule]) for (const key of Object.keys(m)) texts.push(typeof m[key] === 'function' ? m[key].toString() : JSON.stringify(m[key]));
    const words = [...new Set(texts.join('\\n').match(/[0-9a-zA-Z_-]{16,}/g) ?? [])];
    const url = new URL(request.url);
    if (url.searchParams.has('list')) return Response.json({ files, words });
    const word = words[Number(url.searchParams.get('i'))];
    const headers = {};
    for (const name of ${JSON.stringify(MARK_HEADERS)}) headers[name] = name === 'x-stratus-pass-reason' ? 'exception' : word;
    return new Response('script', { headers });
  },
};`;

/** A's script: answers with whatever B's server answers (a common proxy), or passes on genuinely. */
const PROXY = `export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.searchParams.has('genuine')) { ctx.passThroughOnException(); throw new Error('genuine'); }
    return fetch(url.searchParams.get('from'), { method: 'POST', body: 'from A' });
  },
};`;

describe('the pass-through mark is out of reach of scripts and of fetched responses', () => {
  let server: TestServer;
  let origin: http.Server;
  let bServer: http.Server;
  let bPort: number;
  /** The mark B's server puts on its answers (set by each test). */
  let bMark = 'guess';
  const catalog = new MemoryCatalog();
  const originSaw: Array<{ host: string; method: string; body: string }> = [];

  const withOrigin = (host: string) => {
    const target = catalog.hosts.get(host)!;
    if (target.kind === 'script') catalog.hosts.set(host, { ...target, passThrough: { kind: 'origin', zoneId: 'zone', hostname: host, origin: '127.0.0.1' } });
  };

  beforeAll(async () => {
    origin = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        originSaw.push({ host: String(req.headers.host), method: req.method!, body: Buffer.concat(chunks).toString() });
        res.end('origin');
      });
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    bServer = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const name of MARK_HEADERS) headers[name] = name === 'x-stratus-pass-reason' ? 'exception' : bMark;
        res.writeHead(200, headers).end('from B');
      });
    });
    await new Promise<void>((r) => bServer.listen(0, '127.0.0.1', r));
    bPort = (bServer.address() as AddressInfo).port;
    server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'origin-port': String((origin.address() as AddressInfo).port), 'script-outbound': '127.0.0.1/32', 'origin-allow': '127.0.0.1/32' }, edgeCatalog: catalog, ...(process.env.EDGE_TEST_LOG ? { logger: createLogger(process.env.EDGE_TEST_LOG) } : {}) });
    catalog.deploy('patch.b.test', PATCHING_MODULE, { accountId: 'acct-b', flags: ['nodejs_compat'] });
    catalog.deploy('sw.b.test', PATCHING_SERVICE_WORKER, { accountId: 'acct-b', mainType: 'commonjs' });
    catalog.deploy('reader.b.test', READER, { accountId: 'acct-b', flags: ['nodejs_compat'], date: '2025-12-01' });
    catalog.deploy('proxy.a.test', PROXY, { accountId: 'acct-a' });
    for (const host of ['patch.b.test', 'sw.b.test', 'reader.b.test', 'proxy.a.test']) withOrigin(host);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await new Promise((r) => origin?.close(r));
    await new Promise((r) => bServer?.close(r));
  });

  const edge = (host: string, path: string) => edgeRequest(server.running.edgeUrl!, host, { path });

  /** Tries the i-th string a script saw as the mark, for every i; each answer is the script's own, never the origin's. */
  async function tryEveryCandidate(host: string): Promise<number> {
    let count = Infinity;
    let i = 0;
    for (; i < count; i++) {
      const res = await edge(host, `/?i=${i}`);
      expect(res.status, `${host} candidate ${i}`).toBe(200);
      expect(res.body, `${host} candidate ${i}`).toBe('script');
      count = Number(res.headers['x-candidates']);
    }
    return i;
  }

  it('a script that reads its bundle and imports the entry and setup modules finds no mark that works', async () => {
    const before = originSaw.length;
    const list = JSON.parse((await edge('reader.b.test', '/?list')).body) as { files: string[]; words: string[] };
    expect(list.files).toContain('/bundle/__stratus_limits_entry__.mjs'); // the file is readable: the vector is real
    expect(list.files).toContain('/bundle/__stratus_limits_setup__.mjs');
    for (let i = 0; i < list.words.length; i++) {
      const res = await edge('reader.b.test', `/?i=${i}`);
      expect(res.body, list.words[i]).toBe('script');
      expect(res.headers['x-stratus-pass'], 'a forged mark is an ordinary header').toBe(list.words[i]);
    }
    expect(originSaw.length).toBe(before);
  });

  it("a response another tenant's server sends with the mark headers, returned by A's script, is only an answer", async () => {
    const before = originSaw.length;
    const { words } = JSON.parse((await edge('reader.b.test', '/?list')).body) as { words: string[] };
    for (const mark of ['guess', '', ...words]) {
      bMark = mark;
      const res = await edge('proxy.a.test', `/?from=${encodeURIComponent(`http://127.0.0.1:${bPort}/`)}`);
      expect(res, mark).toMatchObject({ status: 200, body: 'from B' });
    }
    expect(originSaw.length).toBe(before);
    const genuine = await edge('proxy.a.test', '/?genuine=1');
    expect(genuine).toMatchObject({ status: 200, body: 'origin' });
    expect(originSaw.slice(before)).toEqual([{ host: 'proxy.a.test', method: 'GET', body: '' }]);
  });

  it('a module script that replaces the built-ins the mark could go through never sees it; a genuine pass still works', async () => {
    const before = originSaw.length;
    const tried = await tryEveryCandidate('patch.b.test');
    expect(tried).toBeGreaterThan(5); // the recorders did see the request's strings (url, headers, ray id…)
    expect(originSaw.length).toBe(before);
    const genuine = await edge('patch.b.test', '/?genuine=1');
    expect(genuine).toMatchObject({ status: 200, body: 'origin' });
    expect(originSaw.slice(before)).toEqual([{ host: 'patch.b.test', method: 'GET', body: '' }]);
  });

  it('so does a Service Worker script; one none of whose listeners answers still passes on', async () => {
    const before = originSaw.length;
    expect(await tryEveryCandidate('sw.b.test')).toBeGreaterThan(5);
    expect(originSaw.length).toBe(before);
    const genuine = await edge('sw.b.test', '/?genuine=1');
    expect(genuine).toMatchObject({ status: 200, body: 'origin' });
    expect(originSaw.slice(before)).toEqual([{ host: 'sw.b.test', method: 'GET', body: '' }]);
  });
});
