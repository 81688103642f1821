/**
 * Request framing on every HTTP listener (RFC 9112 §3.2, §5.1, §5.2, §6.1, §6.3), over raw sockets: each
 * malformed request gets 400 in the listener's format and the connection closed (a follow-up request on it is
 * never answered), on the v4 API and S3 (Node's strict parser) and, for what the front worker can see, on the
 * edge, whose nginx front door answers every case with production's 400 page (with the workerd front or none,
 * what workerd's own parser does is pinned here as docs/edge.md, "Framing", states it). Well-formed requests keep
 * their connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { probeFraming } from '../helpers/raw-framing.js';
import { MemoryCatalog } from '../edge/memory-catalog.js';

const ECHO = `export default { async fetch(r) { return new Response('script saw ' + r.method + ' ' + JSON.stringify(await r.text())); } };`;

/** A request to `path` with `Host: host` and these header lines and body (bytes as written). */
const request = (method: string, target: string, host: string, lines: string[], body = '') =>
  `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${body}`;
const CHUNKED = '5\r\nhello\r\n0\r\n\r\n';

/** Malformed requests: name -> (host, path) -> bytes. */
const MALFORMED: Record<string, (host: string, path: string) => string> = {
  'Transfer-Encoding and Content-Length': (h, p) => request('POST', p, h, ['Content-Length: 5', 'Transfer-Encoding: chunked'], CHUNKED),
  'Content-Length and Transfer-Encoding': (h, p) => request('POST', p, h, ['Transfer-Encoding: chunked', 'Content-Length: 3'], CHUNKED),
  'Transfer-Encoding twice chunked': (h, p) => request('POST', p, h, ['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'], CHUNKED),
  'Transfer-Encoding : chunked': (h, p) => request('POST', p, h, ['Transfer-Encoding : chunked'], CHUNKED),
  'Content-Length : 5': (h, p) => request('POST', p, h, ['Content-Length : 5'], 'hello'),
  'duplicate Content-Length': (h, p) => request('POST', p, h, ['Content-Length: 5', 'Content-Length: 5'], 'hello'),
  'differing Content-Length': (h, p) => request('POST', p, h, ['Content-Length: 5', 'Content-Length: 3'], 'hello'),
  'Content-Length list': (h, p) => request('POST', p, h, ['Content-Length: 5, 5'], 'hello'),
  'Transfer-Encoding: xchunked': (h, p) => request('POST', p, h, ['Transfer-Encoding: xchunked'], CHUNKED),
  'Transfer-Encoding: gzip': (h, p) => request('POST', p, h, ['Transfer-Encoding: gzip'], CHUNKED),
  'Transfer-Encoding: chunked, gzip': (h, p) => request('POST', p, h, ['Transfer-Encoding: chunked, gzip'], CHUNKED),
  'obs-fold': (h, p) => request('GET', p, h, ['X-Folded: one', ' two']),
  'obs-fold with a tab': (h, p) => request('GET', p, h, ['X-Folded: one', '\ttwo']),
  'obs-fold of Transfer-Encoding': (h, p) => request('POST', p, h, ['Transfer-Encoding:', ' chunked'], CHUNKED),
  'asterisk-form for GET': (h) => request('GET', '*', h, []),
  'absolute-form with another scheme': (h, p) => request('GET', `ftp://${h}${p}`, h, []),
  'authority-form for GET': (h) => request('GET', `${h}:80`, h, []),
  'two Host headers': (h, p) => request('GET', p, h, ['Host: other.test']),
};

let server: TestServer;
const catalog = new MemoryCatalog();
let edgePort: number;
let s3Port: number;

beforeAll(async () => {
  server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'edge-front': 'nginx' }, edgeCatalog: catalog });
  catalog.deploy('echo.framing.test', ECHO);
  edgePort = Number(new URL(server.running.edgeUrl!).port);
  s3Port = Number(new URL(server.running.s3Url!).port);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('the v4 API and S3 (Node\'s strict parser)', () => {
  const listeners = () => [
    { name: 'v4', port: server.running.httpPort, path: '/client/v4/zones', type: /^application\/json/ },
    { name: 's3', port: s3Port, path: '/', type: /^application\/xml/ },
  ];

  it('answer every malformed request 400 in their own format, and close the connection', async () => {
    for (const l of listeners()) {
      for (const [name, make] of Object.entries(MALFORMED)) {
        const out = await probeFraming(l.port, make('127.0.0.1', l.path));
        const label = `${l.name}: ${name}`;
        expect(out.status, label).toBe(400);
        expect(out.closed, label).toBe(true);
        expect(out.answers[0]!.headers['content-type'], label).toMatch(l.type);
        expect(out.answers[0]!.headers.connection, label).toBe('close');
      }
    }
  });

  it('v4 names the cause of Transfer-Encoding with Content-Length (6121), whichever comes first', async () => {
    for (const name of ['Transfer-Encoding and Content-Length', 'Content-Length and Transfer-Encoding']) {
      const out = await probeFraming(server.running.httpPort, MALFORMED[name]!('127.0.0.1', '/client/v4/zones'));
      expect(JSON.parse(out.answers[0]!.body), name).toMatchObject({ success: false, errors: [{ code: 6003, error_chain: [{ code: 6121 }] }] });
    }
  });

  it('keep the connection of a well-formed request, in origin-form or absolute-form (which a server must accept)', async () => {
    for (const l of listeners()) {
      for (const target of [l.path, `http://127.0.0.1${l.path}`]) {
        const out = await probeFraming(l.port, request('GET', target, '127.0.0.1', []));
        expect(out.closed, `${l.name} ${target}`).toBe(false);
        expect(out.status, `${l.name} ${target}`).not.toBe(500);
      }
    }
    const options = await probeFraming(s3Port, request('OPTIONS', '*', '127.0.0.1', []));
    expect(options.status).not.toBe(500);
  });
});

describe('the edge (nginx as the front door)', () => {
  const edge = (text: string) => probeFraming(edgePort, text, { host: 'echo.framing.test' });
  const host = 'echo.framing.test';

  beforeAll(async () => {
    // nginx learns the hostname from its first requests (its account's runtime, its fast routes) and reloads,
    // closing idle kept-alive connections: the checks below start once that is done.
    const runtime = server.running.edge!.runtime;
    const name = host.replace(/\./g, '\\.');
    // learned: in the host map, and with the fast path its routes compiled too
    const learned = new RegExp(runtime.fastPathOn ? `\\b${name} \\$stratus_fh` : `\\b${name} stratus_slot`);
    for (let i = 0; i < 600 && !learned.test(runtime.nginxConfig() ?? ''); i++) {
      await probeFraming(edgePort, request('GET', '/', host, []), { host });
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(runtime.nginxConfig()).toMatch(learned);
    await runtime.frontSettled();
  }, 60_000);

  it('answers every malformed request 400 with the error page and closes the connection; the script never runs', async () => {
    for (const [name, make] of Object.entries(MALFORMED)) {
      // several times for the ambiguous bodies: the close must not depend on timing
      for (let i = 0; i < (name.includes('Transfer-Encoding') ? 3 : 1); i++) {
        const out = await edge(make(host, '/'));
        expect(out.status, name).toBe(400);
        expect(out.closed, name).toBe(true);
        expect(out.answers[0]!.headers.connection, name).toBe('close');
        expect(out.answers[0]!.body, name).toContain('Error</span> <span>400</span>');
        expect(out.answers[0]!.body, name).not.toContain('script saw');
        expect(out.answers[0]!.headers['cf-ray'], name).toMatch(/^[0-9a-f]{16}-STR$/);
      }
    }
  });

  it('keeps the connection of a well-formed request, in origin-form, absolute-form and chunked', async () => {
    const out = await edge(request('POST', '/', host, ['Content-Length: 5'], 'hello'));
    expect(out).toMatchObject({ status: 200, closed: false });
    expect(out.answers[0]!.body).toBe('script saw POST "hello"');
    const chunked = await edge(request('POST', '/', host, ['Transfer-Encoding: chunked'], CHUNKED));
    expect(chunked).toMatchObject({ status: 200, closed: false });
    expect(chunked.answers[0]!.body).toBe('script saw POST "hello"');
    const absolute = await edge(request('GET', `http://${host}/`, host, []));
    expect(absolute).toMatchObject({ status: 200, closed: false });
    expect(absolute.answers[0]!.body).toBe('script saw GET ""');
  });
});

describe('the edge with the other fronts', () => {
  const host = 'echo.framing.test';
  for (const front of ['workerd', 'off']) {
    it(`with --edge-front ${front}, the front worker (or the generations' supervisor) refuses ambiguous bodies with 400 and a close`, async () => {
      const other = await startTestServer({ flags: { edge: '127.0.0.1:0', 'edge-front': front }, edgeCatalog: catalog });
      try {
        const port = Number(new URL(other.running.edgeUrl!).port);
        for (const name of ['Transfer-Encoding and Content-Length', 'Content-Length and Transfer-Encoding', 'Transfer-Encoding twice chunked']) {
          const out = await probeFraming(port, MALFORMED[name]!(host, '/'), { host });
          expect(out.status, name).toBe(400);
          expect(out.closed, name).toBe(true);
          expect(out.answers[0]!.body, name).toContain('The request framing is ambiguous');
        }
        // what workerd's parser refuses itself: its own 500, and a close (docs/edge.md, "Framing")
        for (const name of ['duplicate Content-Length', 'Transfer-Encoding: xchunked', 'two Host headers']) {
          const out = await probeFraming(port, MALFORMED[name]!(host, '/'), { host });
          expect(out).toMatchObject({ status: 500, closed: true });
        }
        const fine = await probeFraming(port, request('POST', '/', host, ['Content-Length: 5'], 'hello'), { host });
        expect(fine.status).toBe(200);
        expect(fine.answers[0]!.body).toBe('script saw POST "hello"');
      } finally {
        await other.stop();
      }
    }, 60_000);
  }
});
