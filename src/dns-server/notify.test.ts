import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import dnsPacket from 'dns-packet';
import { notifyOne, parseNotifyTarget } from './notify.js';
import { buildSnapshot } from '../dns/snapshot.js';
import { readServingSettings } from '../dns/snapshot-settings.js';

const NS = ['ns1.example.net'];
const snapshot = buildSnapshot({ id: 'z', name: 'notify.example', serial: 42, nameServers: NS, settings: readServingSettings('{}', '{}', NS) }, [], { ipv4: [], ipv6: [] });

let peer: dgram.Socket | undefined;
afterEach(() => { peer?.close(); peer = undefined; });

/** A secondary that ignores the first `ignore` NOTIFYs, then acknowledges. */
async function secondary(ignore: number): Promise<{ port: number; seen: dnsPacket.Packet[] }> {
  const seen: dnsPacket.Packet[] = [];
  const s = dgram.createSocket('udp4');
  peer = s;
  s.on('message', (msg, rinfo) => {
    const p = dnsPacket.decode(msg);
    seen.push(p);
    if (seen.length <= ignore) return;
    s.send(dnsPacket.encode({ type: 'response', id: p.id, opcode: 'NOTIFY', flags: dnsPacket.AUTHORITATIVE_ANSWER, questions: p.questions } as dnsPacket.Packet), rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  return { port: s.address().port, seen };
}

describe('NOTIFY', () => {
  it('sends the zone SOA with opcode NOTIFY and retries until acknowledged', async () => {
    const { port, seen } = await secondary(2);
    const ok = await notifyOne(snapshot, { host: '127.0.0.1', port }, { tries: 4, timeoutMs: 100 });
    expect(ok).toBe(true);
    expect(seen).toHaveLength(3);
    expect(seen[0]).toMatchObject({ opcode: 'NOTIFY', questions: [{ name: 'notify.example', type: 'SOA' }] });
    expect((seen[0]!.answers![0] as { data: { serial: number } }).data.serial).toBe(42);
  });

  it('gives up after the last try', async () => {
    const { port, seen } = await secondary(99);
    expect(await notifyOne(snapshot, { host: '127.0.0.1', port }, { tries: 2, timeoutMs: 50 })).toBe(false);
    expect(seen).toHaveLength(2);
  });

  it('parses targets', () => {
    expect(parseNotifyTarget('127.0.0.1:5300')).toEqual({ host: '127.0.0.1', port: 5300 });
    expect(parseNotifyTarget('[::1]:53')).toEqual({ host: '::1', port: 53 });
    expect(parseNotifyTarget('192.0.2.1')).toEqual({ host: '192.0.2.1', port: 53 });
    expect(() => parseNotifyTarget('a b')).toThrow();
  });
});
