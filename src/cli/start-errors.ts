/**
 * Listen failures at start, as one line naming every flag and address that failed: before anything is written,
 * `checkListeners` binds every configured address at once (TCP, and UDP for `--dns`) and releases it, so that
 * a start on busy ports stops before the data folder, the database or generated credentials are made, and names
 * all the busy addresses together (`cannot start: --dns 127.0.0.1:1053 is in use (EADDRINUSE); --edge …`).
 * `listenFailure` words a failure of the real listeners (a port taken between the check and the start) the same way.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { ConfigError, type Config, type ListenAddress } from '../config/config.js';

/** The listeners of `stratus serve`, by flag. */
type Listeners = Pick<Config, 'http' | 'dns' | 's3' | 'admin' | 'edge' | 'edgeTls'>;

/** One address that cannot be used, and why. */
interface Refusal {
  flag: string;
  address: ListenAddress;
  what: string;
}

/** The flags with their addresses, in the order the message names them. */
function configured(config: Listeners): [string, ListenAddress][] {
  const all: [string, ListenAddress | undefined][] = [
    ['admin', config.admin], ['http', config.http], ['dns', config.dns], ['s3', config.s3], ['edge', config.edge], ['edge-tls', config.edgeTls],
  ];
  return all.filter((e): e is [string, ListenAddress] => e[1] !== undefined);
}

/**
 * Binds every configured address (port 0 excepted) at once, then releases them; throws one ConfigError naming
 * each address that cannot be used: in use, not on this machine, needing privileges, named twice.
 */
export async function checkListeners(config: Listeners): Promise<void> {
  const listeners = configured(config);
  const refusals: Refusal[] = [];
  const tcpOwner = new Map<string, string>();
  const probes: Promise<void>[] = [];
  for (const [flag, address] of listeners) {
    if (address.port === 0) continue;
    const key = `${address.host}:${address.port}`;
    const other = tcpOwner.get(key);
    if (other !== undefined) {
      refusals.push({ flag, address, what: `is also --${other}'s address` });
      continue;
    }
    tcpOwner.set(key, flag);
    const index = refusals.length;
    refusals.push({ flag, address, what: '' });
    probes.push((async () => {
      const tcp = await probe(() => probeTcp(address));
      const udp = flag === 'dns' ? await probe(() => probeUdp(address)) : undefined;
      const codes = [tcp, udp].filter((c): c is string => c !== undefined);
      if (codes.length === 0) return;
      const code = codes[0]!;
      const only = flag === 'dns' && codes.length === 1 ? (tcp !== undefined ? 'TCP: ' : 'UDP: ') : '';
      refusals[index]!.what = `${reasonOf(code)} (${only}${code})`;
    })());
  }
  await Promise.all(probes);
  const failed = refusals.filter((r) => r.what !== '');
  if (failed.length > 0) throw new ConfigError(cannotStart(failed));
}

/** One line for a listen failure of the real listeners, or undefined when `err` is not one. */
export function listenFailure(err: unknown, config: Listeners): string | undefined {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e.code === undefined || !KNOWN.has(e.code) || (e.code === 'EACCES' && e.syscall !== 'listen' && e.syscall !== 'bind')) return undefined;
  const listeners = configured(config);
  const match = listeners.find(([, a]) => e.port !== undefined && a.port === e.port && a.port !== 0)
    ?? listeners.find(([, a]) => e.address !== undefined && a.host === e.address)
    ?? listeners.find(([, a]) => e.message.includes(`${a.host}:${a.port}`));
  if (match) return cannotStart([{ flag: match[0], address: match[1], what: `${reasonOf(e.code)} (${e.code})` }]);
  return `cannot start: ${e.address ?? ''}${e.port !== undefined ? `:${e.port}` : ''} ${reasonOf(e.code)} (${e.code})`.replace(':  ', ': ');
}

/** The error codes a listen failure is worded for. */
const KNOWN = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOTFOUND', 'EAI_AGAIN']);

/** What a code means for an address. */
function reasonOf(code: string): string {
  return code === 'EADDRINUSE' ? 'is in use'
    : code === 'EADDRNOTAVAIL' ? 'is not an address of this machine'
      : code === 'EACCES' ? 'needs privileges (ports below 1024)'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'does not resolve (use an IP address)' : 'cannot be bound';
}

/** `cannot start: --a X is in use (EADDRINUSE); --b Y …`, and what to do. */
function cannotStart(refusals: Refusal[]): string {
  const items = refusals.map((r) => `--${r.flag} ${r.address.host.includes(':') ? `[${r.address.host}]` : r.address.host}:${r.address.port} ${r.what}`);
  const inUse = refusals.some((r) => r.what.startsWith('is in use'));
  return `cannot start: ${items.join('; ')}. ${inUse ? 'Stop what holds them or choose' : 'Choose'} other addresses `
    + '(port 0 picks a free one; off turns --s3, --edge and --admin off)';
}

/** Runs one probe; the error code it failed with, undefined when the address could be bound. */
async function probe(bind: () => Promise<void>): Promise<string | undefined> {
  try {
    await bind();
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'EINVAL';
  }
}

/** Listens on the TCP address, then closes. */
function probeTcp(address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Binds the UDP address, then closes. */
function probeUdp(address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(net.isIPv6(address.host) ? 'udp6' : 'udp4');
    socket.once('error', (err) => { socket.close(); reject(err); });
    socket.bind({ address: address.host, port: address.port, exclusive: true }, () => socket.close(() => resolve()));
  });
}
