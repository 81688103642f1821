/**
 * The fast path's routing, compiled into nginx configuration (docs/runtime.md, "Design"): for each hostname the
 * edge learned (a hostname whose requests ran a script), a `map $request_uri` whose regular expressions are the
 * hostname's route patterns in production's precedence order (`edge/route-match.ts` is the truth: nginx takes
 * the first regular expression that matches, so they are written most specific first), each naming the upstream
 * of the script version's own socket, a `split_clients` for a percentage deployment, or "" (the slow path, the
 * supervisor as before) for everything else.
 *
 * What is exact and what goes the slow path:
 * - Requests from a client, plain HTTP or HTTPS ended by nginx (`tls-config.ts`): the map's key is
 *   `$scheme:$request_uri`, so a pattern naming `https://` matches HTTPS requests only, one naming `http://` plain
 *   ones only, and a hostname whose zone redirects plain HTTP (`policy`) is fast over HTTPS only. A request
 *   carrying the Node HTTPS listener's or the supervisor's own headers (`x-stratus-front`, `x-stratus-client-ip`,
 *   `x-stratus-scheme`, `x-stratus-internal`) goes the slow path, and so does an HTTPS request whose Host is not
 *   its connection's server name.
 * - Only request targets whose path the supervisor sees byte for byte as sent (workerd's URL parsing changes
 *   nothing in them): letters, digits and `-._~/`, no `//`, no dot segment; any query string. Others go slow.
 *   A pattern whose path holds any other character can match none of those, so it is left out.
 * - The Host header exactly as a learned hostname (nginx's map compares it ignoring case, as the supervisor
 *   lowercases it); one with a port or a trailing dot goes slow.
 * - A route whose script version (each of a split's) is not live and eligible (`versions`), belongs to another
 *   account than the hostname's zone, or whose hostname has something behind the routes (a script may pass a
 *   request on to it): the slow path, with no fall-through to a less specific route.
 *
 * Pure: a function of the learned plans and the live versions.
 */
import type { HostRoutePlan } from '../../edge/types.js';

/** A script version the fast path may forward to: its own socket in each process of its slot's live generation. */
export interface FastVersion {
  accountId: string;
  /** The version's sockets, one per process of the generation (several: nginx picks the one with the fewest requests in flight). */
  sockets: readonly string[];
  /** Its slot's held socket (the supervisor): nginx's backup when the version's socket refuses a connection. */
  slotSocket: string;
}

/** What is compiled. */
export interface FastRouteInput {
  /** Learned hostname (lowercase, no port) -> its routes. */
  hosts: ReadonlyMap<string, HostRoutePlan>;
  /** Eligible live versions by id. */
  versions: ReadonlyMap<string, FastVersion>;
}

/** The request targets the fast path takes (`$request_uri`): a path the supervisor sees unchanged, any query. */
export const SAFE_URI = String.raw`^(?![^?]*//)(?![^?]*/\.\.?(?:[/?]|$))/[-A-Za-z0-9._~/]*(?:\?.*)?$`;
const SAFE_PATH = /^\/[-A-Za-z0-9._~/]*$/;
const PATH_CHARS = /^[-A-Za-z0-9._~/]*$/;
const HOST = /^[a-z0-9_](?:[a-z0-9._-]{0,251}[a-z0-9_])?$/;
const MAP_WORDS = new Set(['default', 'hostnames', 'include', 'volatile']);

/** A name from the catalog as an nginx quoted string (anything that could break out of it is dropped). */
function quoted(text: string): string {
  return `"${text.replace(/[^A-Za-z0-9._:@-]/g, '')}"`;
}

/** The regular expression (nginx `~` form, without the `~`) of a route's path on `$request_uri`. */
export function pathRegex(path: string, wildcard: boolean): string | undefined {
  if (!PATH_CHARS.test(path)) return undefined;
  const escaped = path.replace(/\./g, '\\.');
  return wildcard ? `^${escaped}` : `^${escaped}(?:\\?.*)?$`;
}

/** Whether the fast path would consider this request target at all (the test of {@link SAFE_URI}, in JavaScript). */
export function safeUri(uri: string): boolean {
  const q = uri.indexOf('?');
  const p = q < 0 ? uri : uri.slice(0, q);
  return SAFE_PATH.test(p) && !p.includes('//') && !/\/\.\.?(?:\/|$)/.test(p);
}

/** The nginx `http {}` text of the fast routes: maps, splits and upstreams; defines `$stratus_fast` ("" or an upstream). */
export function fastRoutesConfig(input: FastRouteInput): string {
  const upstreams = new Map<string, string>();
  /** Upstream -> what its access records name: the account and the route label (`script:NAME`, as the supervisor's). */
  const labels = new Map<string, { account: string; route: string }>();
  const upstreamOf = (versionId: string, script: string): string => {
    let name = upstreams.get(versionId);
    if (!name) {
      name = `stratus_v${upstreams.size}`;
      upstreams.set(versionId, name);
      labels.set(name, { account: input.versions.get(versionId)!.accountId, route: `script:${script}` });
    }
    return name;
  };
  const hostLines: string[] = [];
  const maps: string[] = [];
  const splits: string[] = [];
  let h = 0;
  for (const [host, plan] of [...input.hosts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!HOST.test(host) || MAP_WORDS.has(host)) continue;
    const lines: string[] = [];
    for (const route of plan.routes) {
      // the scheme a request may have for this route: a zone setting answering plain HTTP leaves it https only
      const scheme = route.pattern.scheme === 'https' ? 'https' : plan.policy ? (route.pattern.scheme === 'http' ? undefined : 'https')
        : route.pattern.scheme === 'http' ? 'http' : 'https?';
      const path = pathRegex(route.pattern.path, route.pattern.pathWildcard);
      if (path === undefined || scheme === undefined) continue; // matches no request the fast path takes
      const regex = `^${scheme}:${path.slice(1)}`;
      const eligible = route.script !== null && !plan.passThrough && route.versions.length > 0
        && route.versions.every((v) => input.versions.get(v.versionId)?.accountId === plan.accountId);
      let value = '""';
      const script = route.script ?? '';
      if (eligible && route.versions.length === 1) value = upstreamOf(route.versions[0]!.versionId, script);
      else if (eligible) {
        const name = `$stratus_split${splits.length}`;
        const entries = route.versions.map((v, i) => i === route.versions.length - 1
          ? `    * ${upstreamOf(v.versionId, script)};` : `    ${(Math.floor(v.percentage * 100) / 100).toString()}% ${upstreamOf(v.versionId, script)};`);
        // hashed on the ray id (a request's own, nginx-config.ts's rayMap), not $request_id: no RAND_bytes per request
        splits.push(`  split_clients "\${stratus_ray}" ${name} {\n${entries.join('\n')}\n  }`);
        value = name;
      }
      lines.push(`    "~${regex}" ${value};`);
    }
    if (!lines.some((l) => !l.endsWith(' "";'))) continue; // nothing fast for this hostname
    const variable = `$stratus_fh${h++}`;
    hostLines.push(`    ${host} ${variable};`);
    maps.push(`  map "$scheme:$request_uri" ${variable} {\n${lines.join('\n')}\n    default "";\n  }`);
  }
  const upstreamText = [...upstreams].map(([versionId, name]) => {
    const v = input.versions.get(versionId)!;
    const servers = v.sockets.map((socket) => `server unix:${socket} max_fails=0;`).join(' ');
    return `  upstream ${name} { ${v.sockets.length > 1 ? 'least_conn; ' : ''}${servers} server unix:${v.slotSocket} max_fails=0 backup; keepalive 16; keepalive_requests 100000; keepalive_timeout 60s; }`;
  });
  return `  # The fast path (src/runtime/front/fast-routes.ts): requests straight to a script version's own socket.
  map $request_uri $stratus_uri_fast { "~${SAFE_URI}" 1; default 0; }
  map "$http_x_stratus_front$http_x_stratus_client_ip$http_x_stratus_scheme$http_x_stratus_internal" $stratus_plain { "" 1; default 0; }
  map $http_host $stratus_fast_host {
    default "";
${hostLines.join('\n')}
  }
  # over HTTPS, only a request whose Host is the server name its connection was made for (the certificate's and the TLS policy's)
  map "$scheme:$ssl_server_name:$host" $stratus_sni_host { "~^http:" 1; "~*^https:([^:]+):\\1$" 1; default 0; }
  map "$stratus_uri_fast$stratus_plain$stratus_bad_target$stratus_sni_host" $stratus_fast { "1101" $stratus_fast_host; default ""; }
  map $http_cdn_loop $stratus_cdn_loop { "" "cloudflare"; default "$http_cdn_loop, cloudflare"; }
  # What an access record of a fast request names (nginx's log format reads them; "" on the slow path).
  map $stratus_fast $stratus_account {
    default "";
${[...labels].map(([name, l]) => `    ${name} ${quoted(l.account)};`).join('\n')}
  }
  map $stratus_fast $stratus_route {
    default "";
${[...labels].map(([name, l]) => `    ${name} ${quoted(l.route)};`).join('\n')}
  }
${[...maps, ...splits, ...upstreamText].join('\n')}
`;
}
