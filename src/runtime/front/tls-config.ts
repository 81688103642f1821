/**
 * nginx ends TLS for the `--edge-tls` socket (docs/edge.md, "Where TLS ends"): the configuration text, a pure
 * function of the names to serve (`tls-front.ts` compiles them from the certificate store and zone policies).
 *
 * - A `stream {}` server owns the socket: it reads the ClientHello's server name (`ssl_preread`, no TLS yet) and
 *   hands the connection, bytes unchanged, with the client's address in the PROXY protocol, to the Unix socket
 *   of the HTTPS server for that name's TLS version range. nginx 1.22 negotiates the version with the listener's
 *   first server's settings, before it picks a server by name, so each range (a zone's `min_tls_version` and
 *   `tls_1_3`) has a listener of its own.
 * - Each range's listener has one `server {}` per certificate, named by the names it is served for (an exact
 *   name, or a wildcard as a one-label regular expression, as TLS wildcards are), and a default server that
 *   refuses a handshake for any other name. The locations are the plain edge's (`nginx-config.ts`,
 *   `serverBody`): the fast path and the supervisor, with the scheme https and the zone's HSTS headers.
 * - Every name it does not list (no certificate in the store: the `--tls-cert` fallback or a handshake failure;
 *   a zone with `automatic_https_rewrites`, which rewrites HTML bodies) goes to Node's HTTPS listener
 *   (`https-edge.ts`), which ends TLS itself as before.
 */

import type { TlsRange } from '../../edge/zone-policy.js';

/** A zone's TLS version range, the floor and the ceiling nginx offers (edge/zone-policy.ts). */
export type { TlsRange };

/** One name nginx ends TLS for. */
export interface TlsName {
  /** `a.example.com`, or `*.example.com` (one label, as the certificate's wildcard). */
  name: string;
  /** The certificate's file: its chain, then its private key (PEM). */
  certFile: string;
  range: TlsRange;
  /** The zone's `strict-transport-security` value (`security_header`), and whether `nosniff` goes with it. */
  hsts?: string | undefined;
  nosniff?: boolean | undefined;
}

/** What the TLS configuration is made of. */
export interface TlsConfigInput {
  /** The `--edge-tls` socket's address (inherited: `listen` must name it exactly). */
  listen: { host: string; port: number };
  /** Folder of the range listeners' sockets (nginx's private folder). */
  dir: string;
  names: TlsName[];
  /**
   * Names a change moved to another TLS range, each with the range it left: that range's listener still serves
   * them (the stream map routes them to their new range). nginx's old workers, until they have stopped accepting
   * after a reload, still route by the names as they were (nginx-front.ts keeps these until those workers are gone).
   */
  leaving?: TlsName[];
  /** Node's HTTPS listener (a Unix socket), for every other name. */
  nodeSocket: string;
  /** The file of a server's locations (`serverBody(settings, true)`), included by every HTTPS server. */
  bodyFile: string;
}

const VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
const NAME = /^(?:\*\.)?[a-z0-9_](?:[a-z0-9._-]{0,251}[a-z0-9_])?$/;

/** The range's listener socket. */
export function rangeSocket(dir: string, r: TlsRange): string {
  return `${dir}/tls-${r.min}-${r.max}.sock`;
}

/** The `ssl_protocols` of a range. */
function protocols(r: TlsRange): string {
  return VERSIONS.slice(VERSIONS.indexOf(r.min), VERSIONS.indexOf(r.max) + 1).join(' ');
}

/**
 * A name as a map key (`map`, `~*`) or a `server_name` (`~`: nginx matches server names ignoring case already):
 * exact as is; `*.zone` as a regular expression of one label.
 */
function nameKey(name: string, server = false): string {
  return name.startsWith('*.') ? `"~${server ? '' : '*'}^[^.]+${name.slice(1).replace(/\./g, '\\.')}$"` : name;
}

/** The `stream {}` block and the HTTPS servers' `http {}` text. Names that are not plain host names are left out. */
export function tlsConfig(input: TlsConfigInput): { stream: string; servers: string } {
  const names = input.names.filter((n) => NAME.test(n.name));
  const listen = input.listen.host.includes(':') ? `[${input.listen.host}]:${input.listen.port}` : `${input.listen.host}:${input.listen.port}`;
  const ranges = new Map<string, { range: TlsRange; certs: Map<string, string[]> }>();
  for (const n of [...names, ...(input.leaving ?? []).filter((l) => NAME.test(l.name))]) {
    const key = rangeSocket(input.dir, n.range);
    let r = ranges.get(key);
    if (!r) { r = { range: n.range, certs: new Map() }; ranges.set(key, r); }
    const list = r.certs.get(n.certFile) ?? [];
    list.push(n.name);
    r.certs.set(n.certFile, list);
  }
  const stream = `stream {
  # the ClientHello's server name -> the HTTPS listener of its TLS range (nginx), or Node's listener
  map $ssl_preread_server_name $stratus_tls_target {
    hostnames;
    default unix:${input.nodeSocket};
${names.map((n) => `    ${nameKey(n.name)} unix:${rangeSocket(input.dir, n.range)};`).join('\n')}
  }
  server {
    listen ${listen};
    ssl_preread on;
    proxy_pass $stratus_tls_target;
    proxy_protocol on;
    proxy_connect_timeout 5s;
  }
}
`;
  // by the Host (an exact name, or `*.zone`: any name under it, which only its wildcard certificate's connections carry)
  const servers = [`  # HTTPS (src/runtime/front/tls-config.ts): the zone's security_header on its hostnames' answers
  map $host $stratus_hsts {
    hostnames;
    default "";
${names.filter((n) => n.hsts).map((n) => `    ${n.name} "${n.hsts!.replace(/[^A-Za-z0-9=; -]/g, '')}";`).join('\n')}
  }
  map $host $stratus_nosniff {
    hostnames;
    default "";
${names.filter((n) => n.hsts && n.nosniff).map((n) => `    ${n.name} nosniff;`).join('\n')}
  }
  # the zone's value, else the answer's own (hidden from the client by proxy_hide_header, then added back)
  map $stratus_hsts $stratus_hsts_out { "" $upstream_http_strict_transport_security; default $stratus_hsts; }
  map $stratus_nosniff $stratus_nosniff_out { "" $upstream_http_x_content_type_options; default $stratus_nosniff; }
  ssl_session_cache shared:stratus_tls:10m;
  ssl_session_tickets on;
`];
  for (const [socket, r] of ranges) {
    const common = `    ssl_protocols ${protocols(r.range)};
    set_real_ip_from unix:;
    real_ip_header proxy_protocol;
`;
    servers.push(`  server {
    listen unix:${socket} ssl proxy_protocol default_server;
    # a server name of no certificate here: no handshake (requests reach it only with another Host than the name)
    ssl_reject_handshake on;
${common}    include ${input.bodyFile};
  }
`);
    for (const [certFile, list] of r.certs) {
      servers.push(`  server {
    listen unix:${socket} ssl proxy_protocol;
    server_name ${list.map((n) => nameKey(n, true)).join(' ')};
    ssl_certificate ${certFile};
    ssl_certificate_key ${certFile};
${common}    include ${input.bodyFile};
  }
`);
    }
  }
  return { stream, servers: servers.join('') };
}
