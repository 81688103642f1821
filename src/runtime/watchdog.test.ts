import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/logger.js';
import { Watchdog } from './watchdog.js';
import type { WorkerdProcess } from './workerd/process.js';

/** A stand-in for a generation's internal socket: `answer(n)` decides what the n-th ping (from 1) meets. */
async function generation(answer: (n: number, req: http.IncomingMessage, res: http.ServerResponse) => void) {
  let pings = 0;
  const server = http.createServer((req, res) => answer(++pings, req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const process = { alive: true, pid: undefined, internalPort: (server.address() as AddressInfo).port } as unknown as WorkerdProcess;
  return { server, process, pings: () => pings };
}

const stops: Array<() => void> = [];
afterEach(() => { for (const stop of stops.splice(0)) stop(); });

function watch(target: WorkerdProcess, failures: string[]): Watchdog {
  const dog = new Watchdog({ cpuMs: 5000, memoryMb: 1 << 20, secret: 's', logger: createLogger('silent'), target: () => target, onFailure: (why) => failures.push(why) });
  stops.push(() => dog.stop());
  return dog;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

describe('watchdog pings', () => {
  it('does not replace a generation for one ping that failed at once (a kept-alive connection closed as it was reused)', async () => {
    const g = await generation((n, req, res) => { if (n === 2) req.socket.destroy(); else res.end('pong'); });
    stops.push(() => { g.server.closeAllConnections(); g.server.close(); });
    const failures: string[] = [];
    watch(g.process, failures);
    await until(() => g.pings() >= 6);
    expect(failures).toEqual([]);
  });

  it('replaces a generation whose pings fail at once twice in a row', async () => {
    const g = await generation((_n, req) => req.socket.destroy());
    stops.push(() => { g.server.closeAllConnections(); g.server.close(); });
    const failures: string[] = [];
    watch(g.process, failures);
    await until(() => failures.length > 0);
    expect(g.pings()).toBeGreaterThanOrEqual(2);
    expect(failures[0]).toMatch(/PingLost/);
  });
});
