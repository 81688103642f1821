/**
 * The store service's HTTP/1.1 reader and writer on real sockets: requests split anywhere and pipelined, bodies
 * handed on without being held whole, unread bodies skipped, cut bodies reported, streamed answers, and the
 * requests it refuses.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWireServer, type WireHandler } from './wire.js';

const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
});

async function serve(handler: WireHandler, maxHeaderBytes = 64 * 1024, idleTimeoutMs = 60_000): Promise<number> {
  const server = createWireServer(handler, { maxHeaderBytes, idleTimeoutMs });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** Writes `pieces` one by one (each its own write, a pause between), and collects everything answered until the server closes or `until` matches. */
function exchange(port: number, pieces: Array<string | Buffer>, until?: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (until?.(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.on('connect', async () => {
      for (const p of pieces) {
        socket.write(p);
        await new Promise((r) => setImmediate(r));
      }
    });
  });
}

async function readAll(it: AsyncIterator<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (;;) {
    const n = await it.next();
    if (n.done) return Buffer.concat(parts);
    parts.push(n.value);
  }
}

const answers = (text: string) => text.split(/(?=HTTP\/1\.1 )/).filter(Boolean);

describe('store service wire', () => {
  it('reads requests split at any byte and pipelined, answering each in order', async () => {
    const port = await serve(async (req, res) => {
      const body = await readAll(req.body);
      res.send(200, { 'x-method': req.method, 'x-got': req.headers['x-name'] ?? '' }, Buffer.from(`${body.length}:${body.toString()}`));
    });
    const raw = 'PUT / HTTP/1.1\r\nHost: fake-host\r\nX-Name: first\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nx-name: second\r\nx-name: again\r\n\r\n';
    const pieces = raw.split('').reduce<string[]>((acc, ch, i) => (i % 7 === 0 ? [...acc, ch] : [...acc.slice(0, -1), acc.at(-1)! + ch]), []);
    const text = await exchange(port, pieces, (t) => answers(t).length === 2 && t.endsWith('0:'));
    const [a, b] = answers(text);
    expect(a).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(a).toContain('x-method: PUT\r\nx-got: first\r\ncontent-length: 7\r\n\r\n5:hello');
    expect(b).toContain('x-method: GET\r\nx-got: second, again\r\ncontent-length: 2\r\n\r\n0:');
  });

  it('skips a body the handler did not read, then serves the next request on the connection', async () => {
    const port = await serve(async (req, res) => {
      res.send(req.method === 'PUT' ? 403 : 200, {}, Buffer.from(req.method));
    });
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const text = await exchange(port, [`PUT / HTTP/1.1\r\ncontent-length: ${big.length}\r\n\r\n`, big.subarray(0, 1000), big.subarray(1000), 'GET / HTTP/1.1\r\n\r\n'], (t) => t.endsWith('GET'));
    expect(answers(text).map((a) => a.split('\r\n')[0])).toEqual(['HTTP/1.1 403 Forbidden', 'HTTP/1.1 200 OK']);
  });

  it('hands a large body on in pieces as they arrive to a slow handler, never whole', async () => {
    const sizes: number[] = [];
    const port = await serve(async (req, res) => {
      let total = 0;
      for (;;) {
        const n = await req.body.next();
        if (n.done) break;
        sizes.push(n.value.length);
        total += n.value.length;
        await new Promise((r) => setTimeout(r, 1));
      }
      res.send(200, {}, Buffer.from(String(total)));
    });
    const size = 20 * 1024 * 1024;
    const text = await exchange(port, [`PUT / HTTP/1.1\r\ncontent-length: ${size}\r\nconnection: close\r\n\r\n`, Buffer.alloc(size, 1)]);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-length: 8\r\nconnection: close\r\n\r\n20971520$/);
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThan(size);
  });

  it('reports a body cut short (the client went away) as an error, never as a short end', async () => {
    let outcome: string | undefined;
    let resolveDone: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const port = await serve(async (req, res) => {
      try {
        const body = await readAll(req.body);
        outcome = `ended with ${body.length}`;
      } catch (err) {
        outcome = (err as Error).message;
      }
      resolveDone();
      res.send(200, {});
    });
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('PUT / HTTP/1.1\r\ncontent-length: 1000\r\n\r\n');
      socket.write(Buffer.alloc(400));
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('error', () => undefined);
    await done;
    expect(outcome).toBe('the request body ended with 600 bytes not received');
  });

  it('streams an answer of known length and checks it was whole', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(3);
    const port = await serve(async (_req, res) => {
      await res.stream(200, { 'x-kind': 'stream' }, 10 * chunk.length, (async function* () {
        for (let i = 0; i < 10; i++) yield chunk;
      })());
    });
    const text = await exchange(port, ['GET / HTTP/1.1\r\nconnection: close\r\n\r\n']);
    const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
    expect(head).toBe(`HTTP/1.1 200 OK\r\nx-kind: stream\r\ncontent-length: ${10 * chunk.length}\r\nconnection: close`);
    expect(body.length).toBe(10 * chunk.length);
  });

  it('refuses chunked bodies (501), bad heads (400) and heads over the limit (431), closing the connection', async () => {
    const port = await serve(async (_req, res) => res.send(200, {}), 1024);
    expect(await exchange(port, ['PUT / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n'])).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n.*connection: close/s);
    expect(await exchange(port, ['NOT A REQUEST\r\n\r\n'])).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await exchange(port, ['PUT / HTTP/1.1\r\ncontent-length: 12abc\r\n\r\n'])).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await exchange(port, [`GET / HTTP/1.1\r\nx-big: ${'a'.repeat(2000)}\r\n\r\n`])).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  });

  it('writes an answer given in parts as one, with its headers in order', async () => {
    const port = await serve(async (_req, res) => res.send(200, { 'x-one': '1', 'x-two': '2' }, [Buffer.from('{"a":1}'), new Uint8Array([104, 105])]));
    const text = await exchange(port, ['GET / HTTP/1.1\r\nconnection: close\r\n\r\n']);
    expect(text).toBe('HTTP/1.1 200 OK\r\nx-one: 1\r\nx-two: 2\r\ncontent-length: 9\r\nconnection: close\r\n\r\n{"a":1}hi');
    expect(await exchange(port, ['GET / HTTP/1.1\r\nno colon here\r\n\r\n'])).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it('closes a connection idle since its last answer, never one whose request is still being answered', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let answered = 0;
    const port = await serve(async (req, res) => {
      if (req.headers['x-hold'] !== undefined) await held;
      res.send(200, {}, Buffer.from(String(++answered)));
    }, 64 * 1024, 200);
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let closedAfter: string | undefined;
    socket.on('data', (d) => { text += d.toString('latin1'); });
    const closed = new Promise<void>((resolve) => socket.on('close', () => { closedAfter = text; resolve(); }));
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    socket.write('GET / HTTP/1.1\r\nx-hold: 1\r\n\r\n');
    // Held for more than the idle timeout: the connection stays open while the request is in flight.
    const heldSince = Date.now();
    while (Date.now() - heldSince < 600) await new Promise((r) => setTimeout(r, 50));
    expect(closedAfter).toBeUndefined();
    release();
    await closed;
    expect(answers(closedAfter!).map((a) => a.slice(a.indexOf('\r\n\r\n') + 4))).toEqual(['1']);
  });
});
