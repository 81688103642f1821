import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { buildSnapshot } from '../dns/snapshot.js';
import { readServingSettings } from '../dns/snapshot-settings.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { rec } from '../dns/test-support.js';
import { TYPE, RCODE } from '../dns/wire/constants.js';
import { generateZoneKey } from '../dns/dnssec/keys.js';
import { keyContext, type ZoneDnssec } from '../dns/dnssec/config.js';
import { SecretBox } from '../shared/secret-box.js';
import { silentLogger } from '../shared/logger.js';
import { ZoneSigning } from './signing.js';
import { signedTransferBatches, signedTransferRecords } from './signing-transfer.js';
import { transferView } from './axfr.js';

const NS = ['ns1.stratus.test', 'ns2.stratus.test'];
const box = new SecretBox(randomBytes(32));
const key = generateZoneKey();
const dnssec = (status: ZoneDnssec['status'] = 'active'): ZoneDnssec => ({
  status, useNsec3: false, multiSigner: false, presigned: false, modifiedOn: null,
  key: { tag: key.tag, flags: 257, algorithm: 13, publicKey: key.publicKey, sealedPrivateKey: box.seal(key.privateKeyDer, keyContext('z1', key.tag)), createdOn: '' },
});
const zone = (d?: ZoneDnssec) => ({ id: 'z1', name: 'example.com', serial: 1, nameServers: NS, settings: readServingSettings('{}', '{}', NS), dnssec: d });
const records = [
  rec('www.example.com', 'A', '192.0.2.1'),
  rec('sub.example.com', 'NS', 'ns.sub.example.com'),
  rec('sub.example.com', 'DS', `1 13 2 ${'AB'.repeat(32)}`, { data: { key_tag: 1, algorithm: 13, digest_type: 2, digest: 'AB'.repeat(32) } }),
  rec('ns.sub.example.com', 'A', '192.0.2.53'),
];
const edge = { ipv4: ['198.51.100.1'], ipv6: [] };
const rrsigs = (recs: { type: number; rdata: readonly unknown[] }[]) => recs.filter((r) => r.type === TYPE.RRSIG).map((r) => Buffer.from(r.rdata[0] as Uint8Array).toString('hex'));

describe('ZoneSigning', () => {
  it('reuses signatures across a rebuilt zone image (tree vs full build)', () => {
    const signing = new ZoneSigning((s, c) => box.open(s, c), silentLogger());
    const built = buildSnapshot(zone(dnssec()), records, edge);
    const first = signing.answer(built, 'www.example.com', TYPE.A, true);
    const made = signing.cache.made;
    const tree = new ZoneTree(zone(dnssec()), edge);
    tree.apply(records.map((r) => ({ id: r.id, before: null, after: r })), 1);
    const again = signing.answer(tree, 'www.example.com', TYPE.A, true);
    expect(rrsigs(again.answer)).toEqual(rrsigs(first.answer));
    expect(signing.cache.made).toBe(made);
  });

  it('signs the DS of a referral, not NS or glue; answers keys without DO; leaves a zone whose key does not open unsigned', () => {
    const signing = new ZoneSigning((s, c) => box.open(s, c), silentLogger());
    const s = buildSnapshot(zone(dnssec()), records, edge);
    const ref = signing.answer(s, 'host.sub.example.com', TYPE.A, true);
    expect(ref.aa).toBe(false);
    expect(ref.authority.map((r) => r.type)).toEqual([TYPE.NS, TYPE.DS, TYPE.RRSIG]);
    expect(ref.additional.map((r) => r.type)).toEqual([TYPE.A]);
    expect(signing.answer(s, 'example.com', TYPE.DNSKEY, false).answer.map((r) => r.type)).toEqual([TYPE.DNSKEY]);
    const nx = signing.answer(s, 'nope.example.com', TYPE.A, false);
    expect(nx.rcode).toBe(RCODE.NXDOMAIN);

    const other = new ZoneSigning((sealed, c) => new SecretBox(randomBytes(32)).open(sealed, c), silentLogger());
    const unsigned = other.answer(s, 'www.example.com', TYPE.A, true);
    expect(unsigned.answer.map((r) => r.type)).toEqual([TYPE.A]);
  });

  it('pending-disabled announces the delete in CDS/CDNSKEY (RFC 8078); disabled serves no keys', () => {
    const signing = new ZoneSigning((s, c) => box.open(s, c), silentLogger());
    const leaving = buildSnapshot(zone(dnssec('pending-disabled')), records, edge);
    expect(Buffer.from(signing.answer(leaving, 'example.com', 59, true).answer[0]!.rdata[0] as Uint8Array)).toEqual(Buffer.from([0, 0, 0, 0, 0]));
    expect(Buffer.from(signing.answer(leaving, 'example.com', 60, true).answer[0]!.rdata[0] as Uint8Array)).toEqual(Buffer.from([0, 0, 3, 0, 0]));
    const off = buildSnapshot(zone({ ...dnssec('disabled'), key: null }), records, edge);
    expect(signing.answer(off, 'example.com', TYPE.DNSKEY, true).answer).toEqual([]);
  });

  it('the signed transfer has one NSEC per name with data, glue unsigned', () => {
    const signing = new ZoneSigning((s, c) => box.open(s, c), silentLogger());
    const s = buildSnapshot(zone(dnssec()), records, edge);
    const out = signedTransferRecords(s, signing.keysFor(s)!, signing.cache);
    expect(out.filter((r) => r.type === TYPE.NSEC).map((r) => r.name)).toEqual(['example.com', 'sub.example.com', 'www.example.com']);
    const covered = out.filter((r) => r.type === TYPE.RRSIG).map((r) => `${r.name}/${(r.rdata[0] as Buffer).readUInt16BE(0)}`);
    expect(covered).not.toContain(`ns.sub.example.com/${TYPE.A}`);
    expect(covered).not.toContain(`sub.example.com/${TYPE.NS}`);
    expect(covered).toContain(`sub.example.com/${TYPE.DS}`);
  });

  it('a streamed signed transfer of a tree is the version at its start, whatever the tree applies between parts', () => {
    const signing = new ZoneSigning((sealed, c) => box.open(sealed, c), silentLogger());
    const many = Array.from({ length: 3000 }, (_, i) => rec(`h${i}.example.com`, 'A', `192.0.2.${i % 250}`));
    const tree = new ZoneTree(zone(dnssec()), edge);
    tree.apply([...records, ...many].map((r) => ({ id: r.id, before: null, after: r })), 2);
    const show = (recs: { name: string; type: number; rdata: readonly unknown[] }[]) => recs.map((r) => `${r.name} ${r.type} ${r.type === TYPE.RRSIG ? (r.rdata[0] as Buffer).readUInt16BE(0) : JSON.stringify(r.rdata)}`);
    const expected = show(signedTransferRecords(tree, signing.keysFor(tree)!, signing.cache));
    const parts = signedTransferBatches(transferView(tree), signing.keysFor(tree)!, signing.cache);
    const got = [...parts.next().value!];
    tree.apply(many.slice(0, 1000).map((r) => ({ id: r.id, before: r, after: null })), 3);
    tree.apply([{ id: 'late', before: null, after: rec('zzz.example.com', 'A', '192.0.2.99') }], 4);
    for (const batch of parts) got.push(...batch);
    expect(show(got.map((r) => r))).toEqual(expected);
    expect(show(signedTransferRecords(tree, signing.keysFor(tree)!, signing.cache))).not.toEqual(expected);
  });
});

