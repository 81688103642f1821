/**
 * IP addresses as the DNS records API sees them: strict parsing (no `1.1` short forms, no leading zeros,
 * no IPv6 zone ids), RFC 5952 canonical IPv6 text (https://www.rfc-editor.org/rfc/rfc5952) and CIDR
 * membership for the service's own ranges.
 */

/** The four octets of an IPv4 address, or undefined when the text is not a strict dotted quad. */
export function parseIPv4(text: string): Uint8Array | undefined {
  const out = new Uint8Array(4);
  return parseIPv4Into(text, 0, text.length, out, 0) ? out : undefined;
}

/**
 * The strict dotted quad `text[from, to)` written into `out` at `at` (four bytes); false when it is not one.
 * By character codes (a transfer reads and writes millions of these): four parts of 1-3 decimal digits, no
 * leading zero (`010` would be octal to some parsers), each at most 255.
 */
export function parseIPv4Into(text: string, from: number, to: number, out: Uint8Array, at: number): boolean {
  let i = from;
  for (let part = 0; part < 4; part++) {
    if (part > 0) {
      if (i >= to || text.charCodeAt(i) !== 0x2e) return false;
      i++;
    }
    const start = i;
    let value = 0;
    while (i < to && i - start < 4) {
      const c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) break;
      value = value * 10 + (c - 0x30);
      i++;
    }
    const digits = i - start;
    if (digits === 0 || digits > 3 || (digits > 1 && text.charCodeAt(start) === 0x30) || value > 255) return false;
    out[at + part] = value;
  }
  return i === to;
}

/** Dotted-quad text of four octets. */
export function formatIPv4(bytes: Uint8Array): string {
  return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
}

/** The sixteen octets of an IPv6 address (an embedded dotted quad allowed at the end), or undefined. */
export function parseIPv6(text: string): Uint8Array | undefined {
  if (text.length < 2 || text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let groups: number[] = [];
  let tail = text;
  let v4: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = text.slice(0, lastColon + 1);
    // `::1.2.3.4` keeps its `::`; `a:b:c:d:e:f:1.2.3.4` leaves a trailing single ':' to drop.
    if (!tail.endsWith('::')) tail = tail.slice(0, -1);
  }
  const wanted = v4 ? 6 : 8;
  const halves = tail.split('::');
  if (halves.length > 2) return undefined;
  const parseHalf = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    for (const g of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parseHalf(halves[0]!);
  if (!head) return undefined;
  if (halves.length === 2) {
    const rest = parseHalf(halves[1]!);
    if (!rest) return undefined;
    const fill = wanted - head.length - rest.length;
    if (fill < 1) return undefined;
    groups = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    if (head.length !== wanted) return undefined;
    groups = head;
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (v4) out.set(v4, 12);
  return out;
}

/** True when the address is IPv4-mapped (`::ffff:0:0/96`). */
export function isIPv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** RFC 5952 text of sixteen octets: lowercase, no leading zeros, the longest zero run (>= 2) as `::`. */
export function formatIPv6(bytes: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  const mapped = isIPv4Mapped(bytes);
  const count = mapped ? 6 : 8;
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < count; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < count && groups[j] === 0) j++;
    if (j - i > bestLen) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = (from: number, to: number) => groups.slice(from, to).map((g) => g.toString(16)).join(':');
  let text: string;
  if (bestLen >= 2) text = `${hex(0, bestStart)}::${hex(bestStart + bestLen, count)}`;
  else text = hex(0, count);
  if (mapped) {
    const v4 = formatIPv4(bytes.subarray(12));
    text = text.endsWith(':') ? text + v4 : `${text}:${v4}`;
  }
  return text;
}

/** The canonical text of an IPv6 address, or undefined when it does not parse. */
export function canonicalIPv6(text: string): string | undefined {
  const bytes = parseIPv6(text);
  return bytes ? formatIPv6(bytes) : undefined;
}

/** A parsed CIDR range. */
export interface Cidr {
  family: 4 | 6;
  bytes: Uint8Array;
  prefix: number;
}

/** Parses `a.b.c.d/n` or `x::/n` (a bare address is a host range); undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  const v4 = parseIPv4(addr);
  const bytes = v4 ?? parseIPv6(addr);
  if (!bytes) return undefined;
  const max = v4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > max) return undefined;
    prefix = Number(p);
  }
  return { family: v4 ? 4 : 6, bytes, prefix };
}

/** True when the first `prefix` bits of two equal-length byte arrays agree. */
function prefixMatches(a: Uint8Array, b: Uint8Array, prefix: number): boolean {
  const full = prefix >> 3;
  for (let i = 0; i < full; i++) if (a[i] !== b[i]) return false;
  const rest = prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (a[full]! & mask) === (b[full]! & mask);
}

/** True when the address bytes (4 or 16) lie in the range; an IPv4-mapped IPv6 address also tests v4 ranges. */
export function cidrContains(range: Cidr, address: Uint8Array): boolean {
  if (address.length === 4) return range.family === 4 && prefixMatches(range.bytes, address, range.prefix);
  if (range.family === 6) return prefixMatches(range.bytes, address, range.prefix);
  return isIPv4Mapped(address) && prefixMatches(range.bytes, address.subarray(12), range.prefix);
}

/** Parsed ranges by their text (the configured service ranges are checked for every A/AAAA record). */
const parsedRanges = new Map<string, Cidr | undefined>();

/** The first range (as written) that contains the address; malformed ranges are skipped. */
export function findContainingRange(address: Uint8Array, ranges: readonly string[]): string | undefined {
  for (const r of ranges) {
    let cidr = parsedRanges.get(r);
    if (cidr === undefined && !parsedRanges.has(r)) {
      cidr = parseCidr(r.trim());
      if (parsedRanges.size < 10_000) parsedRanges.set(r, cidr);
    }
    if (cidr && cidrContains(cidr, address)) return r;
  }
  return undefined;
}
