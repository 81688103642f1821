/** An nginx front door of its own for a test (one worker, silent), on a held loopback socket. */
import path from 'node:path';
import http from 'node:http';
import { NginxFront } from '../../src/runtime/front/nginx-front.js';
import { holdListeningSocket } from '../../src/runtime/workerd/socket-holder.js';
import { createLogger } from '../../src/shared/logger.js';

/** A running test front: `port` is its edge listener's. */
export interface TestNginxFront {
  front: NginxFront;
  port: number;
  /** Stops nginx and frees the socket. */
  close(): Promise<void>;
}

/** Starts nginx (`binary`) with its files under `dir`/nginx, sending the slow path to `slotSockets`. */
export async function startTestNginxFront(binary: string, dir: string, slotSockets: string[]): Promise<TestNginxFront> {
  const edge = await holdListeningSocket('127.0.0.1', 0);
  try {
    const front = await NginxFront.start({
      binary, edgeFd: edge.fd, dir: path.join(dir, 'nginx'), logger: createLogger('silent'),
      listen: { host: edge.host, port: edge.port }, slotSockets, maxRequestBytes: 1 << 20, colo: 'STR', workers: 1,
    });
    return { front, port: edge.port, close: async () => { await front.stop(1000); await edge.close(); } };
  } catch (err) {
    await edge.close();
    throw err;
  }
}

/**
 * A plain request through the front on `port` that the test's slot holds (the slot pushes each request's
 * response to `held` and answers none until the test ends it): returns once the slot holds it, with the status
 * its client gets once it is answered. A request in flight keeps its nginx worker alive after a reload.
 */
export async function holdRequest(port: number, held: readonly unknown[]): Promise<{ answered: Promise<number> }> {
  const count = held.length;
  const answered = new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/held', headers: { host: 'held.test' }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
  for (let waited = 0; held.length === count; waited += 10) {
    if (waited > 20_000) throw new Error('the slot never got the request');
    await new Promise((r) => setTimeout(r, 10));
  }
  return { answered };
}
