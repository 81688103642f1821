/** `startEdge`: the `--edge` listener, used by `stratus serve` (with the control plane's catalog) and `stratus dev`. */
import net from 'node:net';
import os from 'node:os';
import { EdgeRuntime, type EdgeRuntimeOptions } from './edge-runtime.js';

/** A running edge. */
export interface RunningEdge {
  /** `http://host:port` */
  url: string;
  port: number;
  runtime: EdgeRuntime;
  close(): Promise<void>;
}

/**
 * This host's addresses as /32 and /128 CIDRs, except those inside a range the operator allowed: scripts may
 * not fetch Stratus's own listeners (loopback, private and link-local ranges are already outside workerd's
 * "public" network, but a host may have public addresses too).
 */
export function hostAddressCidrs(allowed: string[] = []): string[] {
  const allow = new net.BlockList();
  for (const c of allowed) {
    const [addr, bits] = c.split('/');
    allow.addSubnet(addr!, Number(bits), net.isIPv6(addr!) ? 'ipv6' : 'ipv4');
  }
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) {
      const address = a.address.split('%')[0]!;
      const type = a.family === 'IPv6' ? 'ipv6' : 'ipv4';
      if (!allow.check(address, type)) out.push(`${address}/${type === 'ipv6' ? 128 : 32}`);
    }
  }
  return out;
}

/** Starts the edge runtime and its listener. Without a catalog every hostname gets the unknown-host page. */
export async function startEdge(opts: EdgeRuntimeOptions): Promise<RunningEdge> {
  const runtime = new EdgeRuntime({ ...opts, scriptDeny: [...hostAddressCidrs(opts.scriptOutbound), ...(opts.scriptDeny ?? [])] });
  try {
    await runtime.start();
  } catch (err) {
    await runtime.close().catch(() => undefined);
    throw err;
  }
  return { url: runtime.url, port: runtime.port, runtime, close: () => runtime.close() };
}
