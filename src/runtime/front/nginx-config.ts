/**
 * The nginx front door's configuration (`nginx-front.ts` runs it): a pure function of the runtime's sockets,
 * secret, body limit and the Host -> runtime slot map, so it can be regenerated and reloaded at any time.
 *
 * What it makes nginx do (docs/runtime.md, "Design"; docs/edge.md, "Framing"):
 * - accept on the held edge socket (inherited, never bound by nginx) and answer framing errors itself, with
 *   production's 400 page and a closed connection (nginx's own 501 for an unknown transfer coding included);
 * - count every body, chunked or not, against the limit (`client_max_body_size`: production's 413 page);
 * - forward to the slot of the request's account (`map $host`, learned from the catalog's answers; slot 0,
 *   the shared runtime, for any other host: its supervisor hands a script's request to the right slot), over
 *   keep-alive connections to the slot's Unix socket, streaming both bodies;
 * - turn an upstream that fails under a request (a generation killed over a limit, or crashed) into the 1102
 *   page (503). Only nginx's own errors are replaced: a script's 502 passes through unchanged;
 * - write the edge's access record of every request, its own answers and requests whose client went away
 *   (499) included, one JSON line each, to a file in the private folder (`nginx-access.ts` reads it): the
 *   supervisor's fields come from its answer's `x-stratus-record` header, which the client never sees.
 * - with the fast path (`fast`, compiled by `fast-routes.ts`), send a request its routes cover straight to the
 *   script version's own socket (`location = /.stratus-front/fast`), the forwarding headers set here;
 * - with `tls` (`tls-config.ts`), end TLS on the `--edge-tls` socket: a `stream {}` server and HTTPS servers whose
 *   locations are the plain server's (`serverBody`), with the scheme https.
 */
import { randomBytes } from 'node:crypto';
import { errorPage } from '../../edge/error-page.js';

/** Everything the configuration is made of. */
export interface NginxSettings {
  /** Private folder for nginx's pid file and temporary files. */
  dir: string;
  /** The inherited edge listener's address (`listen` must name it exactly). */
  listen: { host: string; port: number };
  /** Unix socket paths of the runtime slots, by slot (0: the shared runtime). */
  slotSockets: string[];
  /** Host (lower case) -> slot, for hosts whose scripts run in an account slot. */
  routes: Map<string, number>;
  maxRequestBytes: number;
  /** The ray id's location suffix (`STR`). */
  colo: string;
  /**
   * 16 random hex characters, fresh for each configuration nginx loads ({@link rayMap}); default: made here.
   */
  rayEpoch?: string | undefined;
  /** nginx worker processes (`auto`: one per core; the runtime passes {@link frontWorkerCount}'s). */
  workers: number | 'auto';
  /** Run workers as this user (only when started as root). */
  user?: string | undefined;
  /** The access records' file (none: nginx writes no access log). */
  accessLog?: string | undefined;
  /** The fast path's routes (`fast-routes.ts`); undefined: every request goes to a slot's supervisor. */
  fast?: string | undefined;
  /** The secret the supervisor believes the HTTPS front's headers with (needed with `tls`). */
  secret?: string | undefined;
  /**
   * nginx ends TLS on the `--edge-tls` socket (`tls-config.ts`): the stream module to load, the `stream {}` block,
   * and the `http {}` text of the HTTPS servers (their maps included).
   */
  tls?: { module: string; stream: string; servers: string } | undefined;
}

/**
 * One access record per line, a JSON object (escape=json: every value escaped): a remote address, m the request
 * line's method, s status, t seconds, i Content-Length, o body bytes sent, r the runtime's `x-stratus-record`
 * (upstream only, never a client's header), p the route label of nginx's own pages (and of fast requests), id
 * nginx's ray id, sc the scheme (https on the servers where nginx ended TLS); with the fast path, ac the account of a fast request (from the compiled routes: the script's
 * own answer, which could carry any `x-stratus-record`, is then not believed).
 */
function logFormat(fast: boolean): string {
  return String.raw`'{"a":"$remote_addr","m":"$stratus_method","s":$status,"t":$request_time,"i":"$content_length","o":$body_bytes_sent,"r":"$upstream_http_x_stratus_record","p":"$stratus_route","id":"$stratus_ray","sc":"$scheme"` +
    (fast ? String.raw`,"ac":"$stratus_account"` : '') + `}'`;
}

/**
 * nginx workers for a machine with `cores` usable cores (docs/edge-performance.md, "Many cores"): one per two cores, at least
 * one. nginx spends about a third of the CPU workerd does on a request (15 against 40 µs for a hello world), so
 * half the cores never make it the bottleneck; a worker per core costs more per request where cores are few (on 2
 * cores, 2 workers: nginx 19-27 µs and the generation 42-54 µs per request against 16 and 40 with 1, measured):
 * fewer events per wake-up and more processes sharing the CPU with workerd.
 */
export function frontWorkerCount(cores: number): number {
  return Math.max(1, Math.floor(cores / 2));
}

/** The upstream group name of slot `index`. */
export function slotUpstream(index: number): string {
  return `stratus_slot${index}`;
}

/** A string as an nginx quoted literal (single quotes; `$` would start a variable, so it goes through one). */
function literal(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\$/g, '${stratus_dollar}')}'`;
}

/** The internal URI of the 400 page (a client asking for it gets nginx's 404). */
const FRAMING_PAGE = '/.stratus-front/400';
/** The internal URI of the fast path (a client asking for it gets nginx's 404, as for the 400 page's). */
const FAST_URI = '/.stratus-front/fast';

/**
 * The fast path's location: the request forwarded to its script version's own socket (`$stratus_fast`, an
 * upstream), with the headers the supervisor would have set (edge/forwarding.ts) set here and `request.cf` as the
 * slot's socket gets it, the pass-through
 * nonce header removed (the version's entry then answers a pass-on, or an exception, with the 1101 page itself:
 * limits-shim.ts), and the response's `cf-ray` the request's.
 */
function fastLocation(headers: string): string {
  return `    location = ${FAST_URI} {
      internal;
      proxy_pass http://$stratus_fast$request_uri;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header x-stratus-cf '{"clientIp":"$remote_addr"}';
      proxy_set_header x-stratus-pass-nonce "";
      proxy_set_header cf-connecting-ip $remote_addr;
      proxy_set_header x-real-ip $remote_addr;
      proxy_set_header x-forwarded-for $proxy_add_x_forwarded_for;
      proxy_set_header x-forwarded-proto $scheme;
      # the scheme of the script's request.url (the version's socket takes it from this header, and drops it)
      proxy_set_header x-stratus-proto $scheme;
      proxy_set_header cf-visitor '{"scheme":"$scheme"}';
      proxy_set_header cf-ray $stratus_ray;
      proxy_set_header cf-ipcountry XX;
      proxy_set_header cdn-loop $stratus_cdn_loop;
      proxy_hide_header cf-ray;
      add_header cf-ray $stratus_ray always;
${headers}${PROXY_COMMON}
    }`;
}

/** What both locations set for their upstream connection. */
const PROXY_COMMON = `      proxy_request_buffering off;
      proxy_buffering off;
      proxy_hide_header x-stratus-record;
      proxy_pass_header Server;
      proxy_pass_header Date;
      proxy_read_timeout 1d;
      proxy_send_timeout 1d;
      proxy_next_upstream error;
      proxy_next_upstream_timeout 100ms;
      proxy_next_upstream_tries 2;`;

const RAY = '\u0000RAY\u0000';

/** A named location answering with production's error page (its ray id from nginx's request id). */
function pageLocation(name: string, route: string, status: number, code: number, title: string, detail: string, close: boolean, headers: string): string {
  const body = literal(errorPage(status, code, title, detail, RAY)).replace(RAY, '${stratus_ray}');
  return `    location ${name} {
      internal;
      set $stratus_route ${route};
      default_type 'text/html; charset=UTF-8';
      add_header cf-ray $stratus_ray always;
      add_header cache-control 'private, max-age=0, no-store, no-cache, must-revalidate' always;
${headers}${close ? '      keepalive_timeout 0;\n' : ''}      return ${status} ${body};
    }`;
}

/** A host name as an nginx map key (names come from the catalog; anything odd is left out). */
function hostKey(host: string): string | undefined {
  return /^[a-z0-9*._-]+$/.test(host) && host.length <= 253 ? host : undefined;
}

/**
 * What a server block of the edge holds (its error pages and locations). Over HTTPS (`https`: a server of
 * `tls-config.ts`) the slow path hands the supervisor the client's address and scheme in the headers the
 * runtime's secret vouches for (as the Node HTTPS listener does), and every answer gets the zone's HTTPS headers
 * (`$stratus_hsts`, `$stratus_nosniff`: empty, so not sent, for a zone without them).
 */
export function serverBody(s: NginxSettings, https: boolean): string {
  const headers = https ? HTTPS_HEADERS : '';
  const front = https && s.secret !== undefined
    ? `      proxy_set_header x-stratus-front ${literal(s.secret)};
      proxy_set_header x-stratus-client-ip $remote_addr;
      proxy_set_header x-stratus-scheme https;
` : '';
  return `    # A request refused while its line or headers were read has no URI yet: its page is a URI, not a named location.
    error_page 400 501 =400 ${FRAMING_PAGE};
    error_page 413 @too_large;
    error_page 502 504 =503 @lost;
    location / {
      if ($stratus_bad_target) { return 400; }
${s.fast === undefined ? '' : `      if ($stratus_fast != "") { rewrite ^ ${FAST_URI} last; }
`}      proxy_pass http://$stratus_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header x-stratus-cf '{"clientIp":"$remote_addr"}';
      # only the fast location sends a ray: one reaching a supervisor marks a fast request nginx's backup sent on
      proxy_set_header cf-ray "";
${front}${headers}${PROXY_COMMON}
    }
${s.fast === undefined ? '' : fastLocation(headers)}
${pageLocation(`= ${FRAMING_PAGE}`, 'refused', 400, 400, 'Bad request', 'The request is malformed or its framing is ambiguous (RFC 9112).', true, headers)}
${pageLocation('@too_large', 'refused', 413, 413, 'Request entity too large', 'The request body exceeds the size this zone accepts.', true, headers)}
${pageLocation('@lost', 'lost', 503, 1102, 'Worker exceeded resource limits', 'The script runtime serving this request exceeded its resource limits and was restarted.', false, headers)}`;
}

/**
 * The zone's HTTPS answer headers (security_header), from `tls-config.ts`'s maps on the Host: the zone's value
 * replaces the answer's own, which passes unchanged when the zone sets none (as the Node listener does).
 */
const HTTPS_HEADERS = `      proxy_hide_header strict-transport-security;
      proxy_hide_header x-content-type-options;
      add_header strict-transport-security $stratus_hsts_out always;
      add_header x-content-type-options $stratus_nosniff_out always;
`;

/**
 * The ray id (`$stratus_ray`: production's form, 16 hex characters, `-`, the colo) without a random number per
 * request: nginx's `$request_id` costs an OpenSSL `RAND_bytes` call per request (about 2 µs, 5% of the worker's
 * CPU, docs/edge.md). Instead the last 16 characters of `epoch` + `$connection` + `a` + `$connection_requests`:
 * the connection number is counted across the workers (shared memory) and restarts from 1 with each
 * configuration nginx loads, so each load gets a fresh random `epoch`; the two decimal numbers with a letter
 * between them name one request of that load unambiguously (up to 15 digits together, e.g. 10^9 connections of
 * 10^5 requests each: `keepalive_requests` is 100,000), and the rest of the 16 characters is the epoch's random.
 */
export function rayMap(epoch: string, colo: string): string {
  if (!/^[0-9a-f]{16}$/.test(epoch)) throw new Error(`ray epoch must be 16 hex characters, got ${JSON.stringify(epoch)}`);
  return `  map "${epoch}\${connection}a\${connection_requests}" $stratus_ray { "~^.*(?<r>.{16})$" "$r-${colo}"; }`;
}

/** The nginx.conf text. */
export function nginxConfig(s: NginxSettings): string {
  const listen = s.listen.host.includes(':') ? `[${s.listen.host}]:${s.listen.port}` : `${s.listen.host}:${s.listen.port}`;
  const upstreams = s.slotSockets.map((socket, i) => `  upstream ${slotUpstream(i)} { server unix:${socket} max_fails=0; keepalive 64; keepalive_requests 100000; keepalive_timeout 60s; }`).join('\n');
  const routes = [...s.routes].flatMap(([host, slot]) => {
    const key = hostKey(host);
    return key && slot > 0 && slot < s.slotSockets.length ? [`    ${key} ${slotUpstream(slot)};`] : [];
  }).join('\n');
  return `# Generated by Stratus (src/runtime/front/nginx-config.ts); rewritten and reloaded on change.
${s.tls ? `load_module ${s.tls.module};\n` : ''}${s.user ? `user ${s.user};\n` : ''}worker_processes ${s.workers};
# the maps' regular expressions run on every request: compiled to machine code
pcre_jit on;
daemon off;
pid ${s.dir}/nginx.pid;
error_log stderr error;
events { worker_connections 8192; }
${s.tls?.stream ?? ''}http {
${s.accessLog ? `  log_format stratus escape=json ${logFormat(s.fast !== undefined)};\n  access_log ${s.accessLog} stratus buffer=64k flush=100ms;\n` : '  access_log off;\n'}  server_tokens off;
  client_body_temp_path ${s.dir}/body; proxy_temp_path ${s.dir}/proxy; fastcgi_temp_path ${s.dir}/fastcgi; uwsgi_temp_path ${s.dir}/uwsgi; scgi_temp_path ${s.dir}/scgi;
  client_max_body_size ${s.maxRequestBytes};
  underscores_in_headers on;
  merge_slashes off;
  keepalive_requests 100000;
  # the request line's method: an error page reached through a URI (the 400 page) turns $request_method into GET
  map $request $stratus_method { "~^(?<m>[A-Z_-]+) " $m; default ""; }
${rayMap(s.rayEpoch ?? randomBytes(8).toString('hex'), s.colo)}
  geo $stratus_dollar { default "$"; }
  # RFC 9112 §3.2: the asterisk-form is for OPTIONS only, and an absolute-form target must be http(s) (nginx would forward both)
  map $request $stratus_bad_target { "~^OPTIONS \\* " 0; "~^\\S+ \\* " 1; "~*^\\S+ (?!https?://)[a-z][a-z0-9+.-]*:" 1; default 0; }
  map $host $stratus_upstream {
    hostnames;
    default ${slotUpstream(0)};
${routes}
  }
${upstreams}
${s.fast ?? ''}  server {
    listen ${listen} default_server;
${serverBody(s, false)}
  }
${s.tls?.servers ?? ''}}
`;
}
