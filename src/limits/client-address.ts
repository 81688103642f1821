/**
 * The client address failed authentications are counted under: the socket's peer address, an IPv4-mapped IPv6
 * address as IPv4, and an IPv6 address as its /64 (one host usually holds a whole /64, so counting single
 * addresses would let it start afresh with each of them). Stratus never reads `X-Forwarded-For`: behind a
 * reverse proxy every client shares the proxy's address (docs/security.md).
 */
import net from 'node:net';

/** The counting key of a peer address; undefined when there is none (requests not made over a socket). */
export function clientKey(address: string | undefined): string | undefined {
  if (address === undefined || address === '') return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (net.isIPv4(address)) return address;
  if (!net.isIPv6(address)) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (no zone id), as lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const plain = address.replace(/%.*$/, '').toLowerCase();
  const [head, tail] = plain.includes('::') ? plain.split('::') as [string, string] : [plain, undefined];
  const left = head === '' ? [] : head.split(':');
  const right = (tail === undefined || tail === '' ? [] : tail.split(':')).flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])); // a dotted IPv4 tail is two groups
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.replace(/^0+(?=.)/, ''));
}

/** The peer address of a request served by `@hono/node-server` (its `env.incoming`). */
export function peerAddress(env: unknown): string | undefined {
  return (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
}
