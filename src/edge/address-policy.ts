/**
 * Where the edge may connect: one policy for scripts' `fetch()` (`--script-outbound`, enforced by workerd's network
 * filter, which gets {@link AddressPolicy.workerdNetwork}) and for the origin proxy (`--origin-allow`, checked by
 * {@link AddressPolicy.permits} on the address actually connected to, after name resolution).
 *
 * Prohibited unless an operator range allows them ({@link PROHIBITED_RANGES}): this network (0/8), loopback, the
 * private ranges (10/8, 172.16/12, 192.168/16), shared address space (100.64/10, CGNAT), link-local (169.254/16 with
 * the metadata endpoints, fe80::/10), unique-local (fc00::/7), site-local (fec0::/10), the IETF and benchmarking
 * ranges, multicast and the reserved space, the unspecified and IPv4-compatible forms (::/96), NAT64 local use
 * (64:ff9b:1::/48), IPv4-translated (::ffff:0:0:0/96), and, for every IPv4 range above, its NAT64 (64:ff9b::/96)
 * and 6to4 (2002::/16) forms. IPv4-mapped addresses (::ffff:a.b.c.d) are judged by their IPv4 address. Besides:
 * this host's own addresses (Stratus's listeners), given by the caller.
 *
 * An address is permitted when it is inside a range the operator allowed, or inside none of the prohibited ones.
 * workerd's filter (kj's NetworkFilter) lets the most specific allow win over a less specific deny; the deny list
 * handed to it leaves out the ranges inside an allowed one, so both decide alike. Pure: no I/O.
 */
import { cidrContains, formatIPv6, parseCidr, parseIPv4, parseIPv6, type Cidr } from '../dns/ip.js';

/** The IPv4 ranges no connection reaches unless allowed. */
const IPV4_PROHIBITED = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4',
];
/** The IPv6 ranges no connection reaches unless allowed (IPv4 forms are added from {@link IPV4_PROHIBITED}). */
const IPV6_PROHIBITED = [
  '::/96', '::ffff:0:0:0/96', '64:ff9b:1::/48', '100::/64', '2001::/23', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
];

/** The IPv6 text of sixteen bytes: a prefix of `head` bytes followed by an IPv4 range's bytes, as a CIDR. */
function embedded(head: number[], v4: string, extraBits: number): string {
  const [addr, bits] = v4.split('/');
  const bytes = new Uint8Array(16);
  bytes.set(head);
  bytes.set(parseIPv4(addr!)!, head.length);
  return `${formatIPv6(bytes)}/${extraBits + Number(bits)}`;
}

/** Every prohibited range, IPv4 then IPv6 (with the NAT64 and 6to4 forms of the IPv4 ones). */
export const PROHIBITED_RANGES: readonly string[] = [
  ...IPV4_PROHIBITED,
  ...IPV6_PROHIBITED,
  ...IPV4_PROHIBITED.map((r) => embedded([0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], r, 96)),
  ...IPV4_PROHIBITED.map((r) => embedded([0x20, 0x02], r, 16)),
];

/** Options of {@link AddressPolicy}. */
export interface AddressPolicyOptions {
  /** CIDRs the operator allows although prohibited (`--script-outbound`, `--origin-allow`). */
  allow?: readonly string[];
  /** CIDRs refused besides the prohibited ranges (this host's addresses), unless allowed. */
  deny?: readonly string[];
}

/** The parsed ranges of a list; a malformed one is an error of the caller (the flags are validated before). */
function parseAll(list: readonly string[]): { text: string; cidr: Cidr }[] {
  return list.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`address policy: not a CIDR: ${text}`);
    return { text, cidr };
  });
}

/** True when range `inner` lies inside range `outer` (same family, `outer` no more specific). */
function within(inner: Cidr, outer: Cidr): boolean {
  return inner.family === outer.family && outer.prefix <= inner.prefix && cidrContains(outer, inner.bytes);
}

/** The bytes of an address text (IPv4 dotted quad or IPv6, a zone id dropped), or undefined. */
function addressBytes(address: string): Uint8Array | undefined {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  return parseIPv4(bare) ?? parseIPv6(bare);
}

/** Which addresses outbound connections may reach. */
export class AddressPolicy {
  private readonly allowed: { text: string; cidr: Cidr }[];
  private readonly denied: { text: string; cidr: Cidr }[];

  constructor(opts: AddressPolicyOptions = {}) {
    this.allowed = parseAll(opts.allow ?? []);
    this.denied = parseAll([...PROHIBITED_RANGES, ...(opts.deny ?? [])]);
  }

  /** The range that refuses an address (undefined: permitted; `'malformed'` for text that is no address). */
  refusal(address: string): string | undefined {
    const bytes = addressBytes(address);
    if (!bytes) return 'malformed';
    if (this.allowed.some((a) => cidrContains(a.cidr, bytes))) return undefined;
    return this.denied.find((d) => cidrContains(d.cidr, bytes))?.text;
  }

  /** True when a connection may go to the address. */
  permits(address: string): boolean {
    return this.refusal(address) === undefined;
  }

  /** workerd's `network` service for the same policy: everything, minus the refused ranges not inside an allowed one. */
  workerdNetwork(): { allow: string[]; deny: string[] } {
    return {
      allow: ['0.0.0.0/0', '::/0', ...this.allowed.map((a) => a.text)],
      deny: this.denied.filter((d) => !this.allowed.some((a) => within(d.cidr, a.cidr))).map((d) => d.text),
    };
  }
}
