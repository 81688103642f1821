/** The watchdog's ping client (ping-client.ts) against a real TCP server answering in each of HTTP's framings. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PingClient, PingLost } from './ping-client.js';

const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A server whose `answer(n, socket)` writes the n-th request's answer (from 1); counts connections. */
async function server(answer: (n: number, socket: net.Socket, request: string) => void) {
  let requests = 0;
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const s = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      while (buf.includes('\r\n\r\n')) {
        const request = buf.slice(0, buf.indexOf('\r\n\r\n'));
        buf = buf.slice(buf.indexOf('\r\n\r\n') + 4);
        answer(++requests, socket, request);
      }
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  servers.push(s);
  const closeAll = () => { for (const c of sockets) c.destroy(); };
  return { port: (s.address() as AddressInfo).port, requests: () => requests, connections: () => connections, closeAll };
}

const never = () => new AbortController().signal;

describe('PingClient', () => {
  it('sends the secret and the op, and reads answers of every framing over one kept-alive connection', async () => {
    const seen: string[] = [];
    const s = await server((n, socket, request) => {
      seen.push(request);
      if (n === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npo'), setTimeout(() => socket.write('ng'), 20);
      if (n === 2) socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\npong\r\n'), setTimeout(() => socket.write('0\r\n\r\n'), 20);
      if (n === 3) socket.write('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n');
    });
    const client = new PingClient(s.port, 'sekret');
    for (let i = 0; i < 3; i++) await client.ping(never());
    expect(s.connections()).toBe(1);
    expect(seen[0]).toMatch(/^GET \/ HTTP\/1\.1\r\n/);
    expect(seen[0]).toContain('x-stratus-internal: sekret');
    expect(seen[0]).toContain('x-stratus-op: ping');
    client.close();
  });

  it('reads an answer that ends with the connection, then connects again', async () => {
    const s = await server((_n, socket) => socket.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\npong'));
    const client = new PingClient(s.port, 's');
    await client.ping(never());
    await client.ping(never());
    expect(s.connections()).toBe(2);
    client.close();
  });

  it('rejects with PingLost when the connection closes mid-answer or is refused', async () => {
    const s = await server((_n, socket) => { socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\np'); setTimeout(() => socket.destroy(), 10); });
    const client = new PingClient(s.port, 's');
    await expect(client.ping(never())).rejects.toBeInstanceOf(PingLost);
    const refused = new PingClient(1, 's');
    await expect(refused.ping(never())).rejects.toBeInstanceOf(PingLost);
  });

  it("rejects with the signal's reason at its deadline, and never takes the late answer for the next ping", async () => {
    const held: net.Socket[] = [];
    const s = await server((n, socket) => { if (n === 1) held.push(socket); else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\npong'); });
    const client = new PingClient(s.port, 's');
    const controller = new AbortController();
    const first = client.ping(controller.signal);
    await new Promise((r) => setTimeout(r, 30));
    controller.abort(new DOMException('late', 'TimeoutError'));
    await expect(first).rejects.toMatchObject({ name: 'TimeoutError' });
    // the first answer arrives now, on the connection the aborted ping dropped
    for (const socket of held) if (!socket.destroyed) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\npong');
    await client.ping(never());
    expect(s.connections()).toBe(2);
    client.close();
    s.closeAll();
  });
});
