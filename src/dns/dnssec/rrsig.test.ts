import { describe, expect, it } from 'vitest';
import { createPublicKey, verify } from 'node:crypto';
import { SignatureCache, INCEPTION_SKEW_S, REFRESH_S, VALIDITY_S } from './rrsig.js';
import { generateZoneKey, privateKeyObject, dnskeyRdata, keyTag, dsDigest } from './keys.js';
import { TYPE } from '../wire/constants.js';
import { base32hex, hashPlus, nsec3Hash, predecessor, subtreeEnd, successor, typeBitmap } from './denial.js';
import { compareNames, rrsigLabels } from './canonical.js';

const k = generateZoneKey();
const signer = { zone: 'example.com', tag: k.tag, algorithm: 13, key: privateKeyObject(k.privateKeyDer) };
const a = (name: string, ip: number) => ({ name, type: TYPE.A, ttl: 300, rdata: [Uint8Array.from([192, 0, 2, ip])] });

describe('RRSIG', () => {
  it('backdates inception, caches signatures and refreshes them before expiry', () => {
    let now = 1_800_000_000_000;
    const cache = new SignatureCache(() => now);
    const sig = cache.rrsig(signer, [a('www.example.com', 1), a('www.example.com', 2)]);
    const rdata = sig.rdata[0] as Buffer;
    expect(rdata.readUInt16BE(0)).toBe(TYPE.A);
    expect(rdata[2]).toBe(13);
    expect(rdata[3]).toBe(3);
    expect(rdata.readUInt32BE(8)).toBe(now / 1000 + VALIDITY_S);
    expect(rdata.readUInt32BE(12)).toBe(now / 1000 - INCEPTION_SKEW_S);
    expect(rdata.readUInt16BE(16)).toBe(k.tag);
    // Same rrset in another order: the cached signature.
    expect(cache.rrsig(signer, [a('www.example.com', 2), a('www.example.com', 1)]).rdata[0]).toBe(rdata);
    expect(cache.made).toBe(1);
    now += (VALIDITY_S - REFRESH_S - 1) * 1000;
    cache.rrsig(signer, [a('www.example.com', 1), a('www.example.com', 2)]);
    expect(cache.made).toBe(1);
    now += 2000;
    const fresh = cache.rrsig(signer, [a('www.example.com', 1), a('www.example.com', 2)]).rdata[0] as Buffer;
    expect(cache.made).toBe(2);
    expect(fresh.readUInt32BE(8)).toBe(now / 1000 + VALIDITY_S);
  });

  it('signs what RFC 4034 §3.1.8.1 says, verifiable with the public key; a wildcard owner gets its labels', () => {
    const cache = new SignatureCache(() => 1_800_000_000_000);
    const sig = cache.rrsig(signer, [a('x.wild.example.com', 1)], '*.wild.example.com').rdata[0] as Buffer;
    expect(sig[3]).toBe(3);
    const head = sig.subarray(0, 18 + 13); // 18 fixed octets + "example.com" in wire form
    const owner = Buffer.from('\x01*\x04wild\x07example\x03com\x00', 'latin1');
    const rr = Buffer.concat([owner, Buffer.from([0, 1, 0, 1, 0, 0, 1, 44, 0, 4, 192, 0, 2, 1])]);
    const pub = Buffer.from(k.publicKey, 'base64');
    const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: pub.subarray(0, 32).toString('base64url'), y: pub.subarray(32).toString('base64url') }, format: 'jwk' });
    expect(verify('sha256', Buffer.concat([head, rr]), { key, dsaEncoding: 'ieee-p1363' }, sig.subarray(31))).toBe(true);
  });
});

describe('keys and denial helpers', () => {
  it('key tag and DS digest of RFC 6605 §6.1 example key', () => {
    const pub = Buffer.from('GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64cYbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA==', 'base64');
    const rdata = dnskeyRdata(257, 13, pub);
    expect(keyTag(rdata)).toBe(55648);
    expect(dsDigest('example.net', rdata)).toBe('B4C8C1FE2E7477127B27115656AD6256F424625BF5C1E2770CE6D6E37DF61D17');
  });

  it('type bitmaps, canonical order, NSEC3 hashes and the epsilon names', () => {
    expect(typeBitmap([TYPE.A, TYPE.MX, TYPE.RRSIG, TYPE.NSEC, 1234])).toEqual(Buffer.from([0, 6, 0x40, 0x01, 0, 0, 0, 0x03, 4, 27, ...Array(26).fill(0), 0x20]));
    const names = ['example', 'a.example', 'yljkjljk.a.example', 'Z.a.example', 'zABC.a.EXAMPLE', 'z.example', '\x01.z.example', '*.z.example', '\xc8.z.example'];
    expect([...names].sort(() => 0.5 - Math.random()).sort(compareNames)).toEqual(names);
    expect(base32hex(nsec3Hash('example'))).toHaveLength(32);
    expect(hashPlus(Buffer.from([0, 0xff]), 1)).toEqual(Buffer.from([1, 0]));
    expect(hashPlus(Buffer.from([1, 0]), -1)).toEqual(Buffer.from([0, 0xff]));
    expect(compareNames(predecessor('b.example'), 'b.example')).toBeLessThan(0);
    expect(compareNames(predecessor('b.example'), 'az.example')).toBeGreaterThan(0);
    expect(compareNames(subtreeEnd('b.example'), 'x.y.b.example')).toBeGreaterThan(0);
    expect(compareNames(subtreeEnd('b.example'), 'ba.example')).toBeLessThan(0);
    expect(rrsigLabels('*.a.example')).toBe(2);
    // Names near 255 octets: the epsilon names stay within it and keep their order.
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(53)}.example`;
    expect(long.length + 2).toBe(255);
    for (const n of [successor(long), subtreeEnd(long), predecessor(long)]) expect(n.length + 2).toBeLessThanOrEqual(255);
    expect(compareNames(successor(long), long)).toBeGreaterThan(0);
    expect(compareNames(subtreeEnd(long), long)).toBeGreaterThan(0);
    expect(compareNames(predecessor(long), long)).toBeLessThan(0);
    expect(successor('b.example')).toBe('\x00.b.example');
  });
});
