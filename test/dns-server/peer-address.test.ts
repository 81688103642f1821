/**
 * Secondary DNS peers pass the edge's address policy (secondary-dns/peer-address.ts): without
 * `--transfer-peer-allow` a peer at 127.0.0.1, 10.0.0.1 or ::ffff:127.0.0.1 is refused by the API with 1294
 * (the admin's key and a second account's token alike), and a peer written while the operator allowed loopback
 * is never contacted once the flag no longer allows it: the pull fails with the reason in the incoming status
 * and NOTIFY is not sent (listening sockets on 127.0.0.1 see nothing, while a peer the flag still allows,
 * 127.0.0.2, is contacted in the same pull and the same NOTIFY round).
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { freePort } from './ports.js';
import { untilDefined } from '../helpers/until.js';

const ACCOUNT_SETTINGS_WRITE = '1af1fa2adc104452b74a9a3364202f20';
const PROHIBITED = ['127.0.0.1', '10.0.0.1', '::ffff:127.0.0.1'];
const cleanup: Array<() => Promise<void> | void> = [];
afterAll(async () => { for (const c of cleanup.reverse()) await c(); });

/** Polls `fn` until it gives a value (test/helpers/until.ts). */
const until = <T>(what: string, fn: () => Promise<T | undefined>, ms = 40_000): Promise<T> =>
  untilDefined(what, fn, { ms, pollMs: 100 });

/** A TCP and a UDP socket on `host:port` that count what reaches them (TCP connections are closed at once). */
async function listener(host: string, port: number): Promise<{ tcp: number; udp: number }> {
  const seen = { tcp: 0, udp: 0 };
  const tcp = net.createServer((s) => { seen.tcp++; s.destroy(); });
  await new Promise<void>((resolve) => tcp.listen(port, host, resolve));
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => { seen.udp++; });
  await new Promise<void>((resolve) => udp.bind(port, host, resolve));
  cleanup.push(() => new Promise<void>((resolve) => tcp.close(() => resolve())), () => { udp.close(); });
  return seen;
}

describe('secondary DNS peer addresses', () => {
  it('refuses prohibited peer ips at the API with 1294, for the admin and for a second account\'s token', async () => {
    const server = await startTestServer();
    cleanup.push(() => server.stop());
    const account = await accountId(server);
    const other = await addUser(server, 'peer-address-other@example.com');
    const otherSdk = other.sdk();
    const otherAccount = (await otherSdk.accounts.list()).result[0]!.id;
    const tokenValue = ((await otherSdk.user.tokens.create({ name: 'settings', policies: [{ effect: 'allow', permission_groups: [{ id: ACCOUNT_SETTINGS_WRITE }], resources: { [`com.cloudflare.api.account.${otherAccount}`]: '*' } }] } as never)) as { value: string }).value;
    const otherToken = new Cloudflare({ apiToken: tokenValue, baseURL: server.apiBase, maxRetries: 0 });
    for (const [who, client, acct] of [['admin', server.sdk(), account], ['second account token', otherToken, otherAccount]] as const) {
      const peer = await client.dns.zoneTransfers.peers.create({ account_id: acct, name: 'public', ip: '192.0.2.53', port: 53 } as never);
      expect(peer, who).toMatchObject({ ip: '192.0.2.53' });
      for (const ip of PROHIBITED) {
        for (const call of [
          () => client.dns.zoneTransfers.peers.create({ account_id: acct, name: 'p', ip, port: 53 } as never),
          () => client.dns.zoneTransfers.peers.update(peer.id, { account_id: acct, name: 'p', ip, port: 53 } as never),
        ]) {
          const err = await call().then(() => undefined, (e: { status?: number; errors?: Array<{ code: number; message: string }> }) => e);
          expect([err?.status, err?.errors?.[0]?.code], `${who} ${ip}`).toEqual([400, 1294]);
          expect(err?.errors?.[0]?.message).toContain(ip);
          expect(err?.errors?.[0]?.message).toContain('--transfer-peer-allow');
        }
      }
      // The refused update left the peer as it was.
      expect(await client.dns.zoneTransfers.peers.get(peer.id, { account_id: acct }), who).toMatchObject({ ip: '192.0.2.53' });
    }
    // Raw v4 envelope too.
    const raw = await api(server, 'POST', `/accounts/${account}/secondary_dns/peers`, { name: 'p', ip: '10.0.0.1' });
    expect([raw.status, raw.body.success, raw.body.errors[0]?.code]).toEqual([400, false, 1294]);
  }, 60_000);

  it('never contacts a peer that became prohibited: the pull fails with the reason, no NOTIFY goes out', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-peer-address-'));
    cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const refusedPort = await freePort();
    const allowedPort = await freePort();
    // Peers written while the operator allowed loopback.
    const first = await startTestServer({ dataDir, keepDataDir: true, flags: { 'transfer-peer-allow': '127.0.0.0/8' } });
    const account = await accountId(first);
    const zt1 = first.sdk().dns.zoneTransfers;
    const refused = await zt1.peers.create({ account_id: account, name: 'loopback', ip: '127.0.0.1', port: refusedPort } as never);
    const allowed = await zt1.peers.create({ account_id: account, name: 'still-allowed', ip: '127.0.0.2', port: allowedPort } as never);
    await first.stop();

    const atRefused = await listener('127.0.0.1', refusedPort);
    const atAllowed = await listener('127.0.0.2', allowedPort);
    // Now only 127.0.0.2 is allowed.
    const server = await startTestServer({ dataDir, flags: { 'transfer-peer-allow': '127.0.0.2/32' } });
    cleanup.push(() => server.stop());
    const sdk = server.sdk();
    const zt = sdk.dns.zoneTransfers;

    const secondary = (await sdk.zones.create({ account: { id: account }, name: 'peer-address-secondary.example', type: 'secondary' })).id;
    await zt.incoming.create({ zone_id: secondary, name: 'peer-address-secondary.example', peers: [refused.id, allowed.id], auto_refresh_seconds: 3600 });
    const error = await until('the pull to fail', async () => (await zt.incoming.get({ zone_id: secondary }) as { error?: string }).error);
    expect(error).toContain('loopback (127.0.0.1:');
    expect(error).toContain('peer address 127.0.0.1 is not allowed');
    expect(error).toContain('--transfer-peer-allow');
    expect(atAllowed.tcp).toBeGreaterThan(0); // the same pull went on to the allowed primary
    expect(atRefused.tcp).toBe(0);

    const outgoingZone = await createZone(server, 'peer-address-outgoing.example');
    await zt.outgoing.create({ zone_id: outgoingZone, name: 'peer-address-outgoing.example.', peers: [refused.id, allowed.id] });
    await zt.outgoing.enable({ zone_id: outgoingZone });
    expect(await zt.outgoing.forceNotify({ zone_id: outgoingZone })).toBe('OK');
    await until('NOTIFY at the allowed peer', async () => (atAllowed.udp > 0 ? true : undefined));
    expect(atRefused).toEqual({ tcp: 0, udp: 0 });
  }, 90_000);
});
