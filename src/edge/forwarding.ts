/**
 * The headers the edge adds to a request before it reaches a script or an origin, as production does
 * (developers.cloudflare.com/fundamentals/reference/http-headers/): `CF-Connecting-IP` (the client's
 * address, replacing any sent), `X-Forwarded-For` (the client's address appended to what the client sent),
 * `X-Forwarded-Proto` and `CF-Visitor` (the scheme the client used), `CF-Ray` (the request's ray id),
 * `CDN-Loop` (appended, for loop detection), `X-Real-IP`, and `CF-IPCountry` (`XX`: no geolocation here).
 *
 * Bundled into the supervisor and front workers (`runtime/in-workerd/`) and used by Node too: web APIs only,
 * checked by both tsconfigs.
 */

/**
 * The headers for the next hop: a copy of `incoming` with the forwarding headers set. `alreadyForwarded`: the
 * request already carries this hop's (nginx's fast path set them, and its version's socket refused the request,
 * so nginx sent it to the supervisor: {@link fastFallbackRay}); they are kept as they are, not appended to again.
 */
export function forwardingHeaders(incoming: Headers, clientIp: string, proto: string, ray: string, alreadyForwarded = false): Headers {
  // Stratus's own x-stratus-* headers are not stripped here (hot path): the supervisor answers any request
  // carrying x-stratus-internal itself, and the origin proxy drops the rest.
  const out = new Headers(incoming);
  if (alreadyForwarded) {
    out.set('cf-ray', ray);
    return out;
  }
  out.set('cf-connecting-ip', clientIp);
  out.set('x-real-ip', clientIp);
  const prior = incoming.get('x-forwarded-for');
  out.set('x-forwarded-for', prior ? `${prior}, ${clientIp}` : clientIp);
  out.set('x-forwarded-proto', proto);
  out.set('cf-visitor', JSON.stringify({ scheme: proto }));
  out.set('cf-ray', ray);
  out.set('cf-ipcountry', 'XX');
  const loop = incoming.get('cdn-loop');
  out.set('cdn-loop', loop ? `${loop}, cloudflare` : 'cloudflare');
  return out;
}

/**
 * Behind the nginx front (`behindNginx`), the ray of a request nginx's fast path already forwarded: nginx sets
 * `cf-ray` only in its fast location (its other location removes a client's), so a request reaching the
 * supervisor with one is a fast request sent to nginx's backup server (the slot's socket) because its version's
 * socket refused it. null otherwise (the supervisor makes a ray of its own). Without nginx, a client's `cf-ray`
 * reaches the supervisor and means nothing.
 */
export function fastFallbackRay(incoming: Headers, behindNginx: boolean): string | null {
  return behindNginx ? incoming.get('cf-ray') : null;
}

/** The client's IP from workerd's `request.cf.clientIp` (`1.2.3.4:5678`, `[::1]:5678` or a bare address). */
export function clientAddress(raw: string | undefined): string {
  if (!raw) return '0.0.0.0';
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(raw);
  if (v6) return v6[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::\d+)?$/.exec(raw);
  if (v4) return v4[1]!;
  return raw;
}

/**
 * A new ray id: 16 lowercase hex digits, a dash and the location (`8f1d2c3b4a5e6f70-STR`). The first 8 digits
 * are random per process, the last 8 count requests, so ids are unique without a random draw per request.
 */
export function newRayId(colo: string): string {
  const state = newRayId as unknown as { prefix?: string; n?: number };
  if (state.prefix === undefined) {
    const bytes = new Uint8Array(4);
    crypto.getRandomValues(bytes);
    state.prefix = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    state.n = 0;
  }
  state.n = ((state.n ?? 0) + 1) >>> 0;
  return `${state.prefix}${state.n.toString(16).padStart(8, '0')}-${colo}`;
}
