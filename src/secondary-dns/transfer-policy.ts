/**
 * What the DNS server enforces for zones with outgoing settings (outgoing.ts), as plain data the DNS thread can
 * be posted: per zone, whether transfers are on, its peers (address, port, TSIG key name), the account's ACL
 * ranges and the account's TSIG keys (secrets opened). {@link transferAllowed} decides a transfer request:
 *
 * - a zone without settings: the instance's `--transfer-allow` list (unsigned; signed requests need a key the
 *   zone's account has, so they get BADKEY there);
 * - settings disabled: refused;
 * - enabled: a peer of the zone at that address (a peer without an address matches any), signed with the peer's
 *   key when it has one; or an address inside one of the account's ACL ranges, signed or not.
 */
import net from 'node:net';
import type { TsigKey } from '../dns/tsig.js';
import { isTransferAllowed } from '../dns/transfer-acl.js';

/** A peer of a zone, as enforced and NOTIFYed. */
export interface PolicyPeer {
  ip?: string;
  port: number;
  /** Key name (lowercase, no trailing dot) the peer must sign with. */
  keyName?: string;
  ixfr: boolean;
}

/** A TSIG key as posted (secret in base64). */
export interface PolicyKey {
  name: string;
  algorithm: string;
  secret: string;
}

/** The enforced outgoing settings of one zone. */
export interface ZoneTransferPolicy {
  /** True for a secondary zone without outgoing settings: transfers follow the instance's defaults. */
  defaults?: boolean;
  /** A secondary zone's primaries: the addresses whose NOTIFY is taken (RFC 1996 §3.10). */
  primaries?: string[];
  enabled: boolean;
  peers: PolicyPeer[];
  aclRanges: string[];
  keys: PolicyKey[];
}

/** Policies by zone id. */
export type TransferPolicies = Record<string, ZoneTransferPolicy>;

/** A key name's lookup form. */
export function keyLookupName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** The TSIG key with this name among the zone's account keys. */
export function findKey(policy: ZoneTransferPolicy | undefined, keyName: string): TsigKey | undefined {
  const k = policy?.keys.find((key) => keyLookupName(key.name) === keyName);
  return k ? { name: k.name, algorithm: k.algorithm, secret: Buffer.from(k.secret, 'base64') } : undefined;
}

function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

/** True when `range` (address or CIDR, IPv4 or IPv6) holds `address`. */
export function inRange(address: string, range: string): boolean {
  const addr = plainAddress(address);
  const [base, bits] = range.split('/');
  const kind = net.isIP(base ?? '');
  if (kind === 0 || net.isIP(addr) !== kind) return false;
  const list = new net.BlockList();
  const type = kind === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(base!, type);
  else list.addSubnet(base!, Number(bits), type);
  return list.check(addr, type);
}

/** True when a NOTIFY for the zone from `address` comes from one of its primaries. */
export function notifyAccepted(policy: ZoneTransferPolicy | undefined, address: string): boolean {
  const addr = plainAddress(address);
  return policy?.primaries?.some((p) => plainAddress(p) === addr) === true;
}

/**
 * Whether a transfer (AXFR, IXFR) of a zone may go to `address`, its request signed with `keyName` (verified)
 * or unsigned (undefined).
 */
export function transferAllowed(policy: ZoneTransferPolicy | undefined, defaults: readonly string[], address: string, keyName: string | undefined): boolean {
  if (!policy || policy.defaults === true) return isTransferAllowed(address, defaults);
  if (!policy.enabled) return false;
  const addr = plainAddress(address);
  for (const p of policy.peers) {
    if (p.ip !== undefined && plainAddress(p.ip) !== addr) continue;
    if (p.keyName !== undefined && p.keyName !== keyName) continue;
    if (p.ip === undefined && p.keyName === undefined) continue; // a peer with neither would allow anyone
    return true;
  }
  return policy.aclRanges.some((r) => inRange(addr, r));
}
