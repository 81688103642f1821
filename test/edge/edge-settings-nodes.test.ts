/**
 * Zone settings across nodes: two Stratus nodes on one PostgreSQL database, each with `--edge` and
 * `--edge-tls`. Settings written through node X's API are acted on by node Y's edge (HSTS and the TLS floor on
 * its HTTPS listener, the `always_use_https` redirect on its plain listener, even for a hostname Y had cached)
 * within about a second: Y polls the serials of the zones it serves.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { eventually } from './harness.js';
import * as t from './tls-edge.js';

const ZONE = 'es-nodes.test';
let drop: () => Promise<void>;
let dir: string;
let ca: Buffer;
let origin: http.Server;
let x: TestServer;
let y: TestServer;
let zoneId: string;

const ports = (s: TestServer) => ({ plain: Number(new URL(s.running.edgeUrl!).port), tls: Number(new URL(s.running.edgeTlsUrl!).port) });

beforeAll(async () => {
  const { url, drop: dropDb } = await freshPostgresUrl('edge_settings');
  drop = dropDb;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-edge-settings-nodes-'));
  const made = t.makeEdgeCert(dir, [ZONE]);
  ca = made.ca;
  origin = t.echoOrigin();
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  const flags = {
    'database-url': url, 'blobs-dir': path.join(dir, 'blobs'), 'secrets-key': randomBytes(32).toString('base64'),
    edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'tls-cert': made.cert, 'tls-key': made.key, 'origin-port': String((origin.address() as AddressInfo).port), 'origin-allow': '127.0.0.0/8',
  };
  x = await startTestServer({ flags });
  y = await startTestServer({ flags });
  zoneId = await t.zoneWithRecord(x.apiBase, ca, { email: x.email, key: x.key }, ZONE);
  // Universal SSL is turned off just after the zone is made; a certificate issued in between may be served for a
  // moment (until each node takes the removal): wait until both edges present the listener's own certificate.
  for (const node of [x, y]) await eventually(() => t.secure(ports(node).tls, ca, `www.${ZONE}`, '/'));
}, 120_000);

afterAll(async () => {
  await y?.stop();
  await x?.stop();
  await drop?.();
  await new Promise((r) => origin?.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('zone settings reach the other node', () => {
  it("a change made through node X's API is acted on by node Y's edge", async () => {
    const admin = { email: x.email, key: x.key };
    const py = ports(y);
    const host = `www.${ZONE}`;
    // Y has served (and cached) the hostname before the change
    expect((await eventually(async () => {
      const r = await t.plain(py.plain, host, '/before');
      expect(r.status).toBe(200);
      return r;
    })).status).toBe(200);

    await t.setting(x.apiBase, ca, admin, zoneId, 'ssl', 'flexible');
    await t.setting(x.apiBase, ca, admin, zoneId, 'security_header', { strict_transport_security: { enabled: true, max_age: 120, include_subdomains: false, preload: false, nosniff: false } });
    await t.setting(x.apiBase, ca, admin, zoneId, 'always_use_https', 'on');
    await t.setting(x.apiBase, ca, admin, zoneId, 'min_tls_version', '1.3');

    await eventually(async () => {
      const r = await t.secure(py.tls, ca, host, '/after');
      expect(r.status).toBe(200);
      expect(r.headers['strict-transport-security']).toBe('max-age=120');
    });
    await eventually(async () => {
      await expect(t.secure(py.tls, ca, host, '/', 'TLSv1.2')).rejects.toThrow(/protocol version|alert/i);
    });
    const redirected = await eventually(async () => {
      const r = await t.plain(py.plain, host, '/later?z=1');
      expect(r.status).toBe(301);
      return r;
    });
    expect(redirected.headers.location).toBe(`https://${host}:${py.tls}/later?z=1`);
  }, 120_000);
});
