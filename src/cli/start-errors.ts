/**
 * Turns a failure to listen at start into one line naming the flag: a port in use, an address this machine
 * does not have, a port that needs privileges. Other errors are left to the caller.
 */
import type { Config, ListenAddress } from '../config/config.js';

/** One line for a listen failure of `stratus serve`, or undefined when `err` is not one. */
export function listenFailure(err: unknown, config: Pick<Config, 'http' | 'dns' | 's3' | 'admin' | 'edge'>): string | undefined {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  const why = e.code === 'EADDRINUSE' ? 'the port is in use (another Stratus or program has it): stop it or choose another port'
    : e.code === 'EADDRNOTAVAIL' ? 'this machine has no such address: use one of its addresses, 127.0.0.1 or 0.0.0.0'
      : e.code === 'EACCES' && (e.syscall === 'listen' || e.syscall === 'bind') ? 'permission denied (ports below 1024 need privileges): choose a port above 1023'
        : e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' ? 'the host name does not resolve: use an IP address' : undefined;
  if (why === undefined) return undefined;
  const listeners: [string, ListenAddress | undefined][] = [['http', config.http], ['dns', config.dns], ['s3', config.s3], ['admin', config.admin], ['edge', config.edge]];
  const match = listeners.find(([, a]) => a !== undefined && a.port === e.port && a.port !== 0)
    ?? listeners.find(([, a]) => a !== undefined && e.address !== undefined && a.host === e.address);
  const address = e.port !== undefined ? `${e.address ?? ''}:${e.port}` : e.address ?? '';
  return `${match ? `--${match[0]} ` : ''}cannot listen on ${address}: ${why}`;
}
