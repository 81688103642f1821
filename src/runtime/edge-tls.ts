/**
 * `--edge-tls`, whoever ends TLS (docs/edge.md, "Where TLS ends"): with the nginx front and its stream module,
 * nginx owns the port and ends TLS for every name with a certificate in the store (`tls-front.ts` keeps the list),
 * and hands the other names to Node's listener (`https-edge.ts`, on a Unix socket, behind the PROXY protocol);
 * otherwise Node's listener owns the port and ends TLS for every name, as before.
 */
import path from 'node:path';
import type { CertificateSource } from '../edge/certificates.js';
import type { ZonePolicies } from '../edge/zone-policy.js';
import type { Logger } from '../shared/logger.js';
import type { TlsMaterial } from '../shared/tls-files.js';
import { startHttpsEdge, type HttpsEdge } from './https-edge.js';
import type { RunningEdge } from './start-edge.js';
import { TlsFront } from './tls-front.js';

/** Options of {@link startEdgeTls}. */
export interface EdgeTlsOptions {
  listen: { host: string; port: number };
  /** The fallback certificate (`--tls-cert`), for names without one in the store. */
  tls: TlsMaterial | undefined;
  certificates: CertificateSource | undefined;
  policies: ZonePolicies;
  /** The running edge (its runtime holds the `--edge-tls` socket when nginx ends TLS) and its listen host. */
  edge: RunningEdge;
  edgeHost: string;
  logger: Logger;
}

/** Starts the HTTPS edge; `url` and `port` are the `--edge-tls` listener's whoever holds it. */
export async function startEdgeTls(o: EdgeTlsOptions): Promise<HttpsEdge> {
  const front = o.edge.runtime.tlsFront;
  const edge = { host: o.edgeHost, port: o.edge.port, secret: o.edge.runtime.frontSecret };
  const node = await startHttpsEdge({ listen: front ? { path: front.nodeSocket } : o.listen, tls: o.tls, certificates: o.certificates, policies: o.policies, edge, logger: o.logger });
  if (!front) return node;
  const compiler = o.certificates
    ? new TlsFront({ certificates: o.certificates, policies: o.policies, front, dir: path.join(path.dirname(front.nodeSocket), 'certs'), logger: o.logger })
    : undefined;
  await compiler?.compile();
  const shown = o.listen.host.includes(':') ? `[${o.listen.host}]` : o.listen.host;
  o.logger.child({ component: 'edge-tls' }).info({ port: front.port }, 'HTTPS edge listening (nginx ends TLS for names with a certificate in the store)');
  return {
    url: `https://${shown}:${front.port}`,
    port: front.port,
    tls: node.tls,
    close: async () => {
      compiler?.close();
      await node.close();
    },
  };
}
