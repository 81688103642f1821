/**
 * The zone-transfer allow-list: exact addresses (IPv4-mapped IPv6 addresses match their IPv4 form), IPv4
 * CIDR ranges, or `any`.
 */
import { isIPv4 } from 'node:net';

function ipv4Number(ip: string): number {
  return ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
}

/** True when `address` may transfer zones under `allow`. */
export function isTransferAllowed(address: string, allow: readonly string[]): boolean {
  const addr = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
  for (const entry of allow) {
    if (entry === 'any' || entry === addr) return true;
    const slash = entry.indexOf('/');
    if (slash > 0 && isIPv4(addr) && isIPv4(entry.slice(0, slash))) {
      const bits = Number(entry.slice(slash + 1));
      if (!Number.isInteger(bits) || bits < 0 || bits > 32) continue;
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      if (((ipv4Number(addr) & mask) >>> 0) === ((ipv4Number(entry.slice(0, slash)) & mask) >>> 0)) return true;
    }
  }
  return false;
}
