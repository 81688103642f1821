/**
 * The client's scheme and address as the supervisor trusts them. The HTTPS edge listener (Node,
 * runtime/https-edge.ts) forwards decrypted requests here with the client's address and scheme, vouched for by the
 * secret; from anyone else these headers are dropped.
 */
import { clientAddress } from '../../../edge/forwarding.js';
import { cfClientIp } from '../cf.js';

/** The client's scheme and address, and the request as the script sees it. */
export interface FrontFacts {
  /** The request came through Stratus's HTTPS listener, vouched for by the secret. */
  trusted?: boolean;
  scheme?: 'http' | 'https';
  clientIp?: string;
  /** The request without the listener's headers (and with https:// when it came over HTTPS), when it had them. */
  request?: Request;
}

const FRONT = ['x-stratus-front', 'x-stratus-client-ip', 'x-stratus-scheme', 'x-stratus-proto'];

/**
 * The request's scheme and client address (see the module comment); `request` is set when headers were taken off.
 * `fastFallback`: a fast request nginx's backup sent here; its scheme is in `x-stratus-proto`, which nginx's fast
 * location sets for the version's socket (and which is a client's own, dropped, on any other request).
 */
export function frontFacts(request: Request, secret: string, fastFallback = false): FrontFacts {
  const trusted = request.headers.get('x-stratus-front') === secret;
  const facts: FrontFacts = trusted
    ? { trusted, scheme: request.headers.get('x-stratus-scheme') === 'https' ? 'https' : 'http', clientIp: request.headers.get('x-stratus-client-ip') || '0.0.0.0' }
    : { trusted, scheme: fastFallback && request.headers.get('x-stratus-proto') === 'https' ? 'https' : 'http', clientIp: clientAddress(cfClientIp(request)) };
  if (FRONT.some((h) => request.headers.has(h))) {
    const headers = new Headers(request.headers);
    for (const h of FRONT) headers.delete(h);
    // scripts see the URL the client asked for: https:// when it came through the HTTPS listener
    const url = facts.scheme === 'https' ? 'https:' + request.url.slice(request.url.indexOf(':') + 1) : request.url;
    facts.request = new Request(url, { method: request.method, headers, body: request.body, redirect: 'manual' });
  }
  return facts;
}
