/**
 * RRSIG creation (RFC 4034 §3, RFC 4035 §2.2) with ECDSA P-256 (RFC 6605), and the signature cache.
 *
 * Validity: inception is backdated by {@link INCEPTION_SKEW_S} (resolvers with a slow clock), expiration is
 * {@link VALIDITY_S} ahead. A cached signature is reused while more than {@link REFRESH_S} of its validity
 * remain, then made again, so no answer ever carries a signature close to expiry. The cache is keyed by the
 * key, the signed owner, the type, the TTL and the canonical RDATA: it does not depend on a zone image, so a
 * rebuilt or re-patched zone reuses its signatures.
 */
import { sign, type KeyObject } from 'node:crypto';
import type { WireRecord } from '../wire/message.js';
import { canonicalRdata, rrsigLabels, wireName } from './canonical.js';
import { TYPE } from '../wire/constants.js';

/** Inception is this far in the past (seconds). */
export const INCEPTION_SKEW_S = 3600;
/** Signatures are valid this long after signing (seconds). */
export const VALIDITY_S = 7 * 86_400;
/** A cached signature is replaced once less than this remains (seconds). */
export const REFRESH_S = 3 * 86_400;
/** Cached signatures kept before the cache starts over. */
const MAX_CACHED = 200_000;

/** What signs: the zone's key. */
export interface SigningKey {
  zone: string;
  tag: number;
  algorithm: number;
  key: KeyObject;
}

interface Cached {
  rdata: Buffer;
  expires: number;
}

/** A cache of signatures over RRsets. */
export class SignatureCache {
  private readonly map = new Map<string, Cached>();
  /** Signatures made (not served from the cache), for tests and the benchmark. */
  made = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

  /**
   * The RRSIG of an RRset (records of one owner and type, all with the same TTL). `signedOwner` is the owner
   * the signature covers: the wildcard (`*.example.com`) for an answer synthesized from it (RFC 4035 §2.2 and
   * §5.3.2), else the records' owner. The RRSIG is owned by the records' owner.
   */
  rrsig(k: SigningKey, records: readonly WireRecord[], signedOwner = records[0]!.name): WireRecord {
    const first = records[0]!;
    const ttl = first.ttl;
    let unique: Buffer[];
    if (records.length === 1) unique = [canonicalRdata(first.type, first.rdata)];
    else {
      const rdatas = records.map((r) => canonicalRdata(r.type, r.rdata)).sort(Buffer.compare);
      unique = rdatas.filter((r, i) => i === 0 || !r.equals(rdatas[i - 1]!));
    }
    let key = `${k.tag}|${signedOwner}|${first.type}|${ttl}`;
    for (const r of unique) key += `|${r.length}:${r.toString('latin1')}`;
    const nowS = Math.floor(this.now() / 1000);
    let hit = this.map.get(key);
    if (!hit || hit.expires - nowS < REFRESH_S) {
      hit = this.make(k, first.type, ttl, signedOwner, unique, nowS);
      if (this.map.size >= MAX_CACHED) this.map.clear();
      this.map.set(key, hit);
    }
    return { name: first.name, type: TYPE.RRSIG, ttl, rdata: [hit.rdata] };
  }

  private make(k: SigningKey, type: number, ttl: number, owner: string, rdatas: Buffer[], nowS: number): Cached {
    this.made++;
    const expires = nowS + VALIDITY_S;
    const head = Buffer.alloc(18);
    head.writeUInt16BE(type, 0);
    head[2] = k.algorithm;
    head[3] = rrsigLabels(owner);
    head.writeUInt32BE(ttl >>> 0, 4);
    head.writeUInt32BE(expires >>> 0, 8);
    head.writeUInt32BE((nowS - INCEPTION_SKEW_S) >>> 0, 12);
    head.writeUInt16BE(k.tag, 16);
    const signer = wireName(k.zone);
    const ownerWire = wireName(owner);
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(type, 0);
    fixed.writeUInt16BE(1, 2);
    fixed.writeUInt32BE(ttl >>> 0, 4);
    const parts: Buffer[] = [head, signer];
    for (const r of rdatas) {
      fixed.writeUInt16BE(r.length, 8);
      parts.push(ownerWire, Buffer.from(fixed), r);
    }
    const signature = sign('sha256', Buffer.concat(parts), { key: k.key, dsaEncoding: 'ieee-p1363' });
    return { rdata: Buffer.concat([head, signer, signature]), expires };
  }
}
