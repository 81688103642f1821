/** `startEdge`: the `--edge` listener, used by `stratus serve` (with the control plane's catalog) and `stratus dev`. */
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
 * The public addresses of this host as /32 and /128 CIDRs: scripts may not fetch Stratus's own listeners,
 * and loopback, private and link-local ranges are already outside workerd's "public" network.
 */
export function hostAddressCidrs(): string[] {
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) out.push(a.family === 'IPv6' ? `${a.address.split('%')[0]}/128` : `${a.address}/32`);
  }
  return out;
}

/** Starts the edge runtime and its listener. Without a catalog every hostname gets the unknown-host page. */
export async function startEdge(opts: EdgeRuntimeOptions): Promise<RunningEdge> {
  const runtime = new EdgeRuntime({ ...opts, scriptDeny: [...hostAddressCidrs(), ...(opts.scriptDeny ?? [])] });
  try {
    await runtime.start();
  } catch (err) {
    await runtime.close().catch(() => undefined);
    throw err;
  }
  return { url: runtime.url, port: runtime.port, runtime, close: () => runtime.close() };
}
