/**
 * Online signing in the DNS server (the DNS thread, or the main thread with `--dns-workers 0`): which zones sign and with what key,
 * the signature cache shared by all of them, and the answer a query gets from a signing zone (apex key
 * records always; RRSIGs and denial of existence when the query has DO, dns/dnssec/sign-response.ts). A
 * pre-signed zone (`dnssec_presigned`) is answered from its stored signatures instead (dns/dnssec/presigned-answer.ts).
 *
 * Private keys arrive sealed with the zone (zones.dnssec); they are opened here with the secrets key, once per
 * key, and kept only in memory. A key that does not open (another secrets key) leaves its zone unsigned and is
 * logged once.
 */
import type { Logger } from '../shared/logger.js';
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { lookup, type LookupResult } from '../dns/lookup.js';
import { isSigning, keyContext, type ZoneDnssec } from '../dns/dnssec/config.js';
import { privateKeyObject } from '../dns/dnssec/keys.js';
import { SignatureCache, REFRESH_S } from '../dns/dnssec/rrsig.js';
import { zoneKeys, type ZoneKeys } from '../dns/dnssec/zone-keys.js';
import { lookupSigning, signResult } from '../dns/dnssec/sign-response.js';
import { SecretBox } from '../shared/secret-box.js';
import { metaAnswer } from '../dns/dnssec/meta-queries.js';
import { presignedAnswer } from '../dns/dnssec/presigned-answer.js';

/** Opens a sealed private key (SecretBox.open). */
export type KeyOpener = (sealed: string, context: string) => string;

/** Cached answers carrying signatures are dropped at least this often (well inside the refresh window). */
const PACKET_EPOCH_MS = (REFRESH_S * 1000) / 4;

function stateKey(d: ZoneDnssec): string {
  return `${d.status}|${d.useNsec3}|${d.multiSigner}|${d.key?.sealedPrivateKey ?? ''}`;
}

/** The signing state of every zone a process serves. */
export class ZoneSigning {
  /** Signatures over RRsets, shared by every zone (keyed by key tag and content). */
  readonly cache: SignatureCache;
  private readonly zones = new Map<string, { state: ZoneDnssec; key: string; keys: ZoneKeys | undefined }>();
  private readonly failed = new Set<string>();

  constructor(private readonly open: KeyOpener, private readonly logger: Logger, private readonly now: () => number = () => Date.now()) {
    this.cache = new SignatureCache(now);
  }

  /** Changes every few hours: part of the packet cache key, so no cached answer outlives its signatures' refresh. */
  get epoch(): string {
    return String.fromCharCode(48 + (Math.floor(this.now() / PACKET_EPOCH_MS) % 64));
  }

  /** When the current {@link epoch} ends (ms since 1970): answers cached outside the handler expire then. */
  get epochEnds(): number {
    return (Math.floor(this.now() / PACKET_EPOCH_MS) + 1) * PACKET_EPOCH_MS;
  }

  /** The key material of a signing zone; undefined when the zone does not sign. */
  keysFor(zone: ZoneSnapshot): ZoneKeys | undefined {
    const d = zone.dnssec;
    // A pre-signed zone is served with the signatures it stores (presigned-answer.ts), never signed here.
    if (!isSigning(d) || d.presigned) return undefined;
    const hit = this.zones.get(zone.zoneId);
    if (hit && hit.state === d) return hit.keys;
    const key = stateKey(d);
    if (hit && hit.key === key) { hit.state = d; return hit.keys; }
    let keys: ZoneKeys | undefined;
    try {
      const der = this.open(d.key.sealedPrivateKey, keyContext(zone.zoneId, d.key.tag));
      keys = zoneKeys(zone.origin, d, d.key, { zone: zone.origin, tag: d.key.tag, algorithm: d.key.algorithm, key: privateKeyObject(der) });
    } catch (err) {
      if (!this.failed.has(key)) {
        this.failed.add(key);
        this.logger.error({ zone: zone.origin, err: (err as Error).message }, 'the zone key does not open with this secrets key (--secrets-key); the zone is served unsigned');
      }
    }
    this.zones.set(zone.zoneId, { state: d, key, keys });
    return keys;
  }

  /** The answer to a question from a zone: signed when the zone signs and the query has DO (RRSIG/NSEC questions: meta-queries.ts). */
  answer(zone: ZoneSnapshot, qname: string, qtype: number, dnssecOk: boolean): LookupResult {
    if (zone.dnssec?.presigned) return presignedAnswer(zone, qname, qtype, dnssecOk);
    const keys = this.keysFor(zone);
    if (!keys) return lookup(zone, qname, qtype);
    const meta = metaAnswer(zone, qname, qtype, dnssecOk, keys, this.cache);
    if (meta) return meta;
    const r = lookupSigning(zone, qname, qtype, keys);
    return dnssecOk ? signResult(zone, qname, qtype, r, keys, this.cache) : r;
  }
}

/** The signing of a DNS server holding `secretsKey` (none: zone keys do not open, every zone is served unsigned and logged). */
export function signingWith(secretsKey: Uint8Array | undefined, logger: Logger): ZoneSigning {
  const box = secretsKey ? new SecretBox(Buffer.from(secretsKey)) : undefined;
  return new ZoneSigning((sealed, context) => {
    if (!box) throw new Error('no secrets key configured');
    return box.open(sealed, context);
  }, logger);
}
