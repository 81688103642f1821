/**
 * The stored denial chain of a pre-signed zone, indexed for answers: NSEC owners in canonical order (RFC 4034
 * §6.1), or NSEC3 owners by hash (RFC 5155 §5) with the parameters of the apex NSEC3PARAM. Built once per zone
 * image and serial (every change of the zone bumps the serial), kept beside the image.
 */
import { createHash } from 'node:crypto';
import { TYPE } from '../wire/constants.js';
import type { WireRecord } from '../wire/message.js';
import type { ZoneSnapshot } from '../snapshot.js';
import { compareNames, wireName } from './canonical.js';
import { base32hex } from './denial.js';

/** NSEC3 hash parameters (RFC 5155 §4). */
interface Nsec3Params {
  iterations: number;
  salt: Buffer;
}

const CACHE = new WeakMap<ZoneSnapshot, { serial: number; index: ChainIndex }>();

/** Largest index whose key is <= `key` (by `cmp`), or -1. */
function floor<T>(keys: readonly T[], key: T, cmp: (a: T, b: T) => number): number {
  let lo = 0;
  let hi = keys.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cmp(keys[mid]!, key) <= 0) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found;
}

/** The stored NSEC or NSEC3 chain of one zone image. */
export class ChainIndex {
  /** NSEC3 parameters when the zone has an NSEC3PARAM at its apex (NSEC3 mode); undefined for NSEC. */
  readonly nsec3: Nsec3Params | undefined;
  private readonly owners: string[] = [];
  private readonly records: WireRecord[] = [];

  private constructor(private readonly s: ZoneSnapshot) {
    const param = s.nodes.get(s.origin)?.rrsets.get(TYPE.NSEC3PARAM)?.records[0];
    if (param) {
      const iter = param.rdata[2] as Uint8Array;
      const salt = param.rdata[3] as Uint8Array;
      this.nsec3 = { iterations: (iter[0]! << 8) | iter[1]!, salt: Buffer.from(salt.subarray(1)) };
    }
    const type = this.nsec3 ? TYPE.NSEC3 : TYPE.NSEC;
    const found: Array<[string, WireRecord]> = [];
    for (const node of s.nodes.values()) {
      const rec = node.rrsets.get(type)?.records[0];
      if (!rec) continue;
      found.push([this.nsec3 ? node.name.slice(0, node.name.indexOf('.')).toUpperCase() : node.name, rec]);
    }
    found.sort((a, b) => this.compare(a[0], b[0]));
    for (const [k, rec] of found) {
      this.owners.push(k);
      this.records.push(rec);
    }
  }

  /** The index of a zone image, built at most once per serial. */
  static of(s: ZoneSnapshot): ChainIndex {
    const hit = CACHE.get(s);
    if (hit && hit.serial === s.serial) return hit.index;
    const index = new ChainIndex(s);
    CACHE.set(s, { serial: s.serial, index });
    return index;
  }

  private compare(a: string, b: string): number {
    if (!this.nsec3) return compareNames(a, b);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** The chain key of a name: itself (NSEC) or its NSEC3 hash label, uppercase base32hex. */
  private key(name: string): string {
    if (!this.nsec3) return name;
    const { iterations, salt } = this.nsec3;
    let h = createHash('sha1').update(wireName(name)).update(salt).digest();
    for (let i = 0; i < iterations; i++) h = createHash('sha1').update(h).update(salt).digest();
    return base32hex(h).toUpperCase();
  }

  /** The NSEC or NSEC3 owned by (NSEC3: matching) `name`; [] when there is none. */
  matching(name: string): WireRecord[] {
    const k = this.key(name);
    const i = floor(this.owners, k, (a, b) => this.compare(a, b));
    return i >= 0 && this.compare(this.owners[i]!, k) === 0 ? [this.records[i]!] : [];
  }

  /** The NSEC or NSEC3 whose span holds `name` (the last owner before it, wrapping round); [] for an empty chain. */
  covering(name: string): WireRecord[] {
    if (this.records.length === 0) return [];
    const k = this.key(name);
    let i = floor(this.owners, k, (a, b) => this.compare(a, b));
    if (i >= 0 && this.compare(this.owners[i]!, k) === 0) i -= 1;
    return [this.records[i < 0 ? this.records.length - 1 : i]!];
  }
}
